import { randomInt } from 'node:crypto';
import type { GrpcTypes } from '@mysten/sui/grpc';
import type { Logger } from '../../core/index.js';
import { DEFAULT_MAX_BATCH_SIZE } from '../dispatcher.js';
import { discoverDocument, documentMethod, RPC_DISCOVER, RPC_DISCOVER_SPEC, type OpenRpcDiscoverDocument } from '../discover.js';
import { batchRefusal, readCall, resultResponse, type JsonRpcId } from '../envelope.js';
import { JSONRPC_ERROR, JsonRpcError } from '../method.js';
import { OPENRPC_METHODS, OpenRpcSchemas } from '../openrpc.js';
import { namedParams } from '../params.js';
import { DEFAULT_MAX_RESPONSE_BYTES, serializeCallAnswer } from '../response-size.js';
import { renderEffects, renderEvent } from '../methods/transactions/render-response.js';
import { timestampMs } from '../methods/transactions/legacy-values.js';
import type { CheckpointFeed } from './checkpoint-feed.js';
import { CONNECTION_FILTER_LIMITS } from '../../streams/index.js';
import { filterLimitExceeded } from './filter-budget.js';
import type { OrganizationSocketShare } from './organization-shares.js';
import { UNSUBSCRIBE_METHOD_OBJECTS } from './unsubscribe-methods.js';
import { compileEventFilter, compileTransactionFilter, indexEvent, type IndexedEvent, type LegacyEvent } from './predicates.js';

/**
 * One WebSocket's JSON-RPC subscriptions, transport-neutral: text frames in, text frames out.
 * `suix_subscribeEvent` / `suix_subscribeTransaction` answer a subscription id, then each match
 * arrives as `{jsonrpc, method, params: {subscription, result}}` as on a node;
 * `suix_unsubscribeEvent` / `suix_unsubscribeTransaction` answer true (false for an unknown id).
 */

export type Charge = (kind: 'call' | 'notification') => Promise<{ code: string; message: string; closing: boolean } | undefined>;

export interface SessionOptions {
  feed: CheckpointFeed;
  send(text: string): void;
  /** Meters one call or one notification; a refusal answers the call with an error, or (closing) ends the socket. */
  charge: Charge;
  /** Ends the socket (quota spent while notifying, the key refused). */
  close(code: string, message: string): void;
  maxSubscriptions?: number;
  /** Bytes of one call's answer frame, as over HTTP (response-size.ts); a batch's answers are one frame each. */
  maxResponseBytes?: number;
  /** The socket's part of its organization's subscriptions and filter bytes: a refusal is -32602 naming the limit. */
  organization?: OrganizationSocketShare;
  /** Where a call that fails for a reason other than its input is logged (-32603 is a bug). */
  logger?: Pick<Logger, 'error'>;
}

interface Subscription {
  kind: 'event' | 'transaction';
  /** `events` renders the transaction's events once for every subscription of the socket. */
  matches: (tx: GrpcTypes.ExecutedTransaction, events: () => IndexedEvent[]) => unknown[];
  bytes: number;
  distinctValues: number;
}

const SUBSCRIBE = { suix_subscribeEvent: 'event', suix_subscribeTransaction: 'transaction' } as const;
/** The document's methods served only over the WebSocket of /v1/jsonrpc (as on a node). */
export const SUBSCRIPTION_METHODS: readonly string[] = Object.keys(SUBSCRIBE);
const UNSUBSCRIBE = { suix_unsubscribeEvent: 'event', suix_unsubscribeTransaction: 'transaction' } as const;
const NOTIFICATION_METHOD = { event: 'suix_subscribeEvent', transaction: 'suix_subscribeTransaction' } as const;

type Id = JsonRpcId;

/** The document's param schemas, compiled on first use and shared by every socket. */
const PARAM_SCHEMAS = new OpenRpcSchemas('params');

/** The WebSocket's answer to `rpc.discover`: its subscribe and unsubscribe methods (made on first use). */
let webSocketDocument: OpenRpcDiscoverDocument | undefined;

function discover(params: unknown): OpenRpcDiscoverDocument {
  namedParams(RPC_DISCOVER_SPEC, params, PARAM_SCHEMAS);
  return webSocketDocument ??= discoverDocument([...SUBSCRIPTION_METHODS.map(documentMethod), ...UNSUBSCRIBE_METHOD_OBJECTS]);
}

function errorFrame(id: Id, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id });
}

export class SubscriptionSession {
  readonly #options: SessionOptions;
  readonly #subscriptions = new Map<number, Subscription>();
  #stopFeed: (() => void) | undefined;
  #closed = false;
  /** Notifications are charged one at a time, in order. */
  #charging: Promise<void> = Promise.resolve();

  constructor(options: SessionOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  async receive(text: string): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      // Every call is charged, its errors included (one credit, as over HTTP).
      if (await this.#refused(null)) return;
      this.#options.send(errorFrame(null, JSONRPC_ERROR.parseError, 'Parse error'));
      return;
    }
    if (!Array.isArray(message)) {
      await this.#call(message);
      return;
    }
    // A batch is read as over HTTP (envelope.ts); its answers go one frame each, as a node's
    // WebSocket answers batches item by item.
    const refusal = batchRefusal(message.length, DEFAULT_MAX_BATCH_SIZE);
    if (refusal) {
      if (await this.#refused(null)) return;
      this.#options.send(JSON.stringify(refusal));
      return;
    }
    for (const item of message) await this.#call(item);
  }

  async #call(message: unknown): Promise<void> {
    const read = readCall(message);
    const id: Id = 'call' in read ? (read.call.id ?? null) : null;
    if (await this.#refused(id)) return;
    // The socket closed while the call was charged (its key check may wait on the database):
    // nobody reads the answer, and a subscription made now would hold its organization's place
    // and a feed listener for good, `dispose` having run.
    if (this.#closed) return;
    if ('invalid' in read) {
      this.#options.send(JSON.stringify(read.invalid));
      return;
    }
    const { call } = read;
    // A notification gets no answer (JSON-RPC 2.0), so a subscription made by one could never be
    // known or ended by its client: it is charged as a call and not run.
    if (!Object.hasOwn(call, 'id')) return;
    const method = call.method;
    if (!(method in SUBSCRIBE) && !(method in UNSUBSCRIBE) && method !== RPC_DISCOVER) {
      this.#options.send(errorFrame(id, JSONRPC_ERROR.methodNotFound, `Method not found: ${method}`,
        { reason: 'the WebSocket of /v1/jsonrpc serves subscriptions; send other methods with POST /v1/jsonrpc' }));
      return;
    }
    try {
      const result = method === RPC_DISCOVER
        ? discover(call.params)
        : method in SUBSCRIBE
        ? this.#subscribe(method as keyof typeof SUBSCRIBE, call.params)
        : this.#unsubscribe(UNSUBSCRIBE[method as keyof typeof UNSUBSCRIBE], call.params);
      this.#options.send(serializeCallAnswer(resultResponse(id, result), this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES));
    } catch (error) {
      if (error instanceof JsonRpcError) this.#options.send(errorFrame(id, error.code, error.message, error.data));
      else {
        this.#options.logger?.error({ err: error, method }, 'JSON-RPC subscription call failed');
        this.#options.send(errorFrame(id, JSONRPC_ERROR.internalError, 'Internal error'));
      }
    }
  }

  /** Charges one call; a refusal answers it with the spec's code (and, when closing, ends the socket). */
  async #refused(id: Id): Promise<boolean> {
    const refusal = await this.#options.charge('call');
    if (!refusal) return false;
    this.#options.send(errorFrame(id, JSONRPC_ERROR.serverError, refusal.message, { code: refusal.code }));
    if (refusal.closing) this.#options.close(refusal.code, refusal.message);
    return true;
  }

  #subscribe(method: keyof typeof SUBSCRIBE, params: unknown): number {
    const kind = SUBSCRIBE[method];
    // The params as over HTTP: named, each checked against the document's schema (an `All` with
    // filters in it, an address that is not hex, nesting past MAX_PARAMS_DEPTH are -32602).
    const { filter } = namedParams(OPENRPC_METHODS.get(method)!, params, PARAM_SCHEMAS);
    const max = this.#options.maxSubscriptions ?? 64;
    if (this.#subscriptions.size >= max) {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: at most ${max} subscriptions per connection`, { code: 'TOO_MANY_SUBSCRIPTIONS' });
    }
    const compiled = kind === 'event' ? eventSubscription(filter) : transactionSubscription(filter);
    const held = this.#held();
    if (held.bytes + compiled.bytes > CONNECTION_FILTER_LIMITS.maxBytes) {
      throw filterLimitExceeded('bytesPerSocket', CONNECTION_FILTER_LIMITS.maxBytes, 'bytes over the socket\'s subscriptions');
    }
    if (held.distinctValues + compiled.distinctValues > CONNECTION_FILTER_LIMITS.maxDistinctValues) {
      throw filterLimitExceeded('distinctValuesPerSocket', CONNECTION_FILTER_LIMITS.maxDistinctValues, 'distinct values over the socket\'s subscriptions');
    }
    this.#options.organization?.holdSubscription(compiled.bytes);
    // Node subscription ids are u64 numbers; ours stay within JavaScript's safe integers.
    let subscriptionId = randomInt(1, 2 ** 48);
    while (this.#subscriptions.has(subscriptionId)) subscriptionId = randomInt(1, 2 ** 48);
    this.#subscriptions.set(subscriptionId, { kind, ...compiled });
    this.#stopFeed ??= this.#options.feed.listen((tx) => this.#deliver(tx));
    return subscriptionId;
  }

  #unsubscribe(kind: 'event' | 'transaction', params: unknown): boolean {
    const raw = Array.isArray(params) ? params[0] : params && typeof params === 'object' ? Object.values(params)[0] : undefined;
    const subscriptionId = Number(raw);
    const subscription = this.#subscriptions.get(subscriptionId);
    if (!subscription || subscription.kind !== kind) return false;
    this.#subscriptions.delete(subscriptionId);
    this.#options.organization?.releaseSubscription(subscription.bytes);
    if (this.#subscriptions.size === 0) this.#stop();
    return true;
  }

  #held(): { bytes: number; distinctValues: number } {
    let bytes = 0;
    let distinctValues = 0;
    for (const subscription of this.#subscriptions.values()) {
      bytes += subscription.bytes;
      distinctValues += subscription.distinctValues;
    }
    return { bytes, distinctValues };
  }

  #deliver(tx: GrpcTypes.ExecutedTransaction): void {
    let events: IndexedEvent[] | undefined;
    const eventsOf = () => (events ??= indexEvents(tx));
    for (const [subscription, entry] of this.#subscriptions) {
      for (const result of entry.matches(tx, eventsOf)) {
        const frame = JSON.stringify({ jsonrpc: '2.0', method: NOTIFICATION_METHOD[entry.kind], params: { subscription, result } });
        this.#charging = this.#charging.then(async () => {
          if (this.#closed || !this.#subscriptions.has(subscription)) return;
          // Paid before it is sent: a notification the balance cannot cover is never sent, and ends the socket.
          const refusal = await this.#options.charge('notification');
          if (refusal) {
            this.#options.close(refusal.code, refusal.message);
            this.dispose();
            return;
          }
          this.#options.send(frame);
        });
      }
    }
  }

  #stop(): void {
    this.#stopFeed?.();
    this.#stopFeed = undefined;
  }

  /** Ends the socket for a refusal that came with no call (its key checked again): an error with id null, then the close. */
  end(code: string, message: string): void {
    if (this.#closed) return;
    this.#options.send(errorFrame(null, JSONRPC_ERROR.serverError, message, { code }));
    this.#options.close(code, message);
    this.dispose();
  }

  /** The socket is gone: drop every subscription (and the feed, if it was the last listener). */
  dispose(): void {
    this.#closed = true;
    for (const subscription of this.#subscriptions.values()) this.#options.organization?.releaseSubscription(subscription.bytes);
    this.#subscriptions.clear();
    this.#stop();
  }
}

/** Compiled once at subscribe time; per transaction only lookups remain. */
function eventSubscription(filter: unknown): Omit<Subscription, 'kind'> {
  const compiled = compileEventFilter(filter);
  return { ...compiled, matches: (_tx, events) => events().filter((e) => compiled.matches(e)).map((e) => e.event) };
}

function transactionSubscription(filter: unknown): Omit<Subscription, 'kind'> {
  const compiled = compileTransactionFilter(filter);
  return { ...compiled, matches: (tx) => (compiled.matches(tx) ? [renderEffects(tx.effects, tx.digest ?? '')] : []) };
}

/** The transaction's events as every event subscription reads them: rendered, types normalized, once. */
function indexEvents(tx: GrpcTypes.ExecutedTransaction): IndexedEvent[] {
  const digest = tx.digest ?? '';
  const timestamp = timestampMs(tx.timestamp);
  return (tx.events?.events ?? []).map((e, i) => indexEvent(renderEvent(e, digest, i, timestamp) as unknown as LegacyEvent));
}
