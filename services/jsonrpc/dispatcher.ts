import { isApiError, type Logger } from '../core/index.js';
import { isUnchargedError } from '../metering/index.js';
import { upstreamApiError } from '../upstream/index.js';
import {
  batchRefusal, errorResponse, readCall, resultResponse, STANDARD_MESSAGES,
  type JsonRpcErrorObject, type JsonRpcId, type JsonRpcResponse,
} from './envelope.js';
import { discoverDocument, documentMethod, RPC_DISCOVER, RPC_DISCOVER_SPEC, type OpenRpcDiscoverDocument } from './discover.js';
import { JSONRPC_ERROR, JsonRpcError, type JsonRpcContext, type JsonRpcMethod } from './method.js';
import { OPENRPC_METHODS, OpenRpcSchemas, type OpenRpcMethodSpec } from './openrpc.js';
import { namedParams } from './params.js';
import { BatchAnswer, DEFAULT_MAX_RESPONSE_BYTES, serializeCallAnswer } from './response-size.js';

/** Calls one HTTP request may batch (documented in docs/jsonrpc.md). */
export const DEFAULT_MAX_BATCH_SIZE = 50;

export interface JsonRpcDispatcherOptions {
  methods: readonly JsonRpcMethod[];
  maxBatchSize?: number;
  /** Bytes of one answer, a batch's whole answer included (response-size.ts). */
  maxResponseBytes?: number;
  logger?: Pick<Logger, 'error'>;
}

/** A body, read: the calls to run, or the one answer a body that is no request at all earns. */
export type ParsedBody =
  | { kind: 'calls'; batch: boolean; items: readonly unknown[] }
  | { kind: 'refused'; response: JsonRpcResponse };

/** What running a body's calls produced. */
export interface DispatchResult {
  /** The response body, serialized; undefined when every call was a notification (nothing to answer). */
  body: string | undefined;
  /**
   * Calls that are charged: all but those that failed upstream (the spec does not charge 5xx) and
   * those the deployment could not serve (`isUnchargedError`: no upstream for the network).
   */
  billable: number;
}

interface Outcome {
  response: JsonRpcResponse | undefined;
  billable: boolean;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The transport-neutral half of the JSON-RPC gateway: reads a body (single call or batch),
 * checks each call (envelope, method, params against the OpenRPC document), runs it on its
 * method and turns every failure into its JSON-RPC error object. HTTP and WebSocket adapters
 * share it.
 */
export class JsonRpcDispatcher {
  readonly maxBatchSize: number;
  readonly maxResponseBytes: number;
  readonly #methods = new Map<string, { method: JsonRpcMethod; spec: OpenRpcMethodSpec }>();
  readonly #schemas = new OpenRpcSchemas('params');
  readonly #logger: Pick<Logger, 'error'> | undefined;
  /** The answer to `rpc.discover`, made on first use. */
  #discover: OpenRpcDiscoverDocument | undefined;

  constructor(options: JsonRpcDispatcherOptions) {
    this.maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#logger = options.logger;
    for (const method of options.methods) {
      const spec = OPENRPC_METHODS.get(method.name);
      if (!spec) throw new Error(`JSON-RPC method ${method.name} is not in the OpenRPC document`);
      if (this.#methods.has(method.name)) throw new Error(`JSON-RPC method ${method.name} is registered twice`);
      this.#methods.set(method.name, { method, spec });
    }
  }

  /** The served methods, in registration order. */
  get methods(): readonly JsonRpcMethod[] {
    return [...this.#methods.values()].map((entry) => entry.method);
  }

  /** A raw body as calls: -32700 for bytes that are not JSON, -32600 for an empty or oversized batch. */
  parse(raw: Buffer | string | undefined): ParsedBody {
    let value: unknown;
    try {
      const text = typeof raw === 'string' ? raw : STRICT_UTF8.decode(raw ?? new Uint8Array());
      value = JSON.parse(text);
    } catch {
      return { kind: 'refused', response: errorResponse(null, { code: JSONRPC_ERROR.parseError, message: STANDARD_MESSAGES[JSONRPC_ERROR.parseError]! }) };
    }
    if (!Array.isArray(value)) return { kind: 'calls', batch: false, items: [value] };
    const refusal = batchRefusal(value.length, this.maxBatchSize);
    if (refusal) return { kind: 'refused', response: refusal };
    return { kind: 'calls', batch: true, items: value };
  }

  /**
   * Runs the calls (a batch's concurrently; the request's upstream bounds its fan-out). Each
   * answer is serialized as its call finishes; once a batch's answers are over
   * `maxResponseBytes`, `tooBig` is called (the transport cancels the calls still running) and
   * the batch is answered -32011, charged for every call: the calls ran or were stopped because
   * of what the caller asked for.
   */
  async run(parsed: Extract<ParsedBody, { kind: 'calls' }>, context: () => JsonRpcContext, tooBig?: () => void): Promise<DispatchResult> {
    if (!parsed.batch) {
      const outcome = await this.#runOne(parsed.items[0], context);
      const body = outcome.response ? serializeCallAnswer(outcome.response, this.maxResponseBytes) : undefined;
      return { body, billable: outcome.billable ? 1 : 0 };
    }
    const answer = new BatchAnswer(parsed.items.length, this.maxResponseBytes);
    let billable = 0;
    await Promise.all(parsed.items.map(async (item, index) => {
      const outcome = await this.#runOne(item, context);
      if (outcome.billable) billable += 1;
      // Past the bound nothing more is serialized, and the calls still running are stopped once.
      if (outcome.response && !answer.tooBig && !answer.add(index, outcome.response)) tooBig?.();
    }));
    if (answer.tooBig) return { body: answer.text(), billable: parsed.items.length };
    return { body: answer.empty ? undefined : answer.text(), billable };
  }

  async #runOne(item: unknown, context: () => JsonRpcContext): Promise<Outcome> {
    const read = readCall(item);
    if ('invalid' in read) return { response: read.invalid, billable: true };
    const { call } = read;
    const notification = !Object.hasOwn(call, 'id');
    const id = call.id ?? null;
    const answer = (response: JsonRpcResponse, billable = true): Outcome => ({ response: notification ? undefined : response, billable });
    if (call.method === RPC_DISCOVER) return this.#runDiscover(call.params, answer, id);
    const entry = this.#methods.get(call.method);
    if (!entry) {
      return answer(errorResponse(id, { code: JSONRPC_ERROR.methodNotFound, message: `${STANDARD_MESSAGES[JSONRPC_ERROR.methodNotFound]}: ${call.method}` }));
    }
    try {
      const params = namedParams(entry.spec, call.params, this.#schemas);
      const result = await entry.method.handle(params, context());
      return answer(resultResponse(id, result));
    } catch (error) {
      const failure = this.#errorObject(error, call.method);
      return answer(errorResponse(id, failure.error), !failure.uncharged);
    }
  }

  /** `rpc.discover` (discover.ts): the document of the methods this dispatcher serves. */
  #runDiscover(params: unknown, answer: (response: JsonRpcResponse) => Outcome, id: JsonRpcId): Outcome {
    try {
      namedParams(RPC_DISCOVER_SPEC, params, this.#schemas);
    } catch (error) {
      return answer(errorResponse(id, this.#errorObject(error, RPC_DISCOVER).error));
    }
    this.#discover ??= discoverDocument(this.methods.map((method) => documentMethod(method.name)));
    return answer(resultResponse(id, this.#discover));
  }

  #errorObject(thrown: unknown, method: string): { error: JsonRpcErrorObject; uncharged: boolean } {
    if (thrown instanceof JsonRpcError) {
      // A method's own -32000 is an upstream failure (method.ts `upstreamFailure`): not charged.
      const uncharged = thrown.code === JSONRPC_ERROR.serverError;
      return { error: { code: thrown.code, message: thrown.message, ...(thrown.data === undefined ? {} : { data: thrown.data }) }, uncharged };
    }
    // An upstream object or checkpoint that does not exist is the caller's 4xx, not a failure.
    const error = upstreamApiError(thrown, 'NOT_FOUND');
    if (isApiError(error)) {
      if (error.status >= 500) {
        return { error: { code: JSONRPC_ERROR.serverError, message: `${STANDARD_MESSAGES[JSONRPC_ERROR.serverError]}: ${error.message}`, data: { code: error.code } }, uncharged: true };
      }
      // NETWORK_NOT_CONFIGURED is the deployment's, not the call's: not charged, as on every transport.
      return { error: { code: JSONRPC_ERROR.invalidParams, message: `${STANDARD_MESSAGES[JSONRPC_ERROR.invalidParams]}: ${error.message}`, data: { code: error.code } }, uncharged: isUnchargedError(error.code) };
    }
    this.#logger?.error({ err: thrown, method }, 'JSON-RPC method failed');
    return { error: { code: JSONRPC_ERROR.internalError, message: STANDARD_MESSAGES[JSONRPC_ERROR.internalError]! }, uncharged: true };
  }
}
