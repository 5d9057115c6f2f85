import { performance } from 'node:perf_hooks';
import type { RpcOptions, RpcTransport } from '@protobuf-ts/runtime-rpc';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Bulkhead, refusalError } from './bulkhead.js';
import { CircuitBreaker, type BreakerState } from './circuit-breaker.js';
import { DefaultDeadlineTransport } from './default-deadline.js';
import { fromGrpcError, UpstreamError } from './errors.js';
import { postGraphQL } from './graphql.js';
import { passGraphQL, type GraphQLPassThroughResponse } from './graphql-pass-through.js';
import { createGrpcTransport } from './grpc-channel.js';
import { RawGrpcChannel } from './grpc-raw-channel.js';
import { Http2GrpcTransport } from './http2-grpc-transport.js';
import { isCancelled, REQUEST_CANCELLATION, RequestCancellation, signalOf, type CallCancel } from './request-cancellation.js';
import { RequestUpstream } from './request-upstream.js';
import { realRetryEnv, withRetries, type RetryEnv, type RetryPolicy } from './retry.js';
import { waitWithin } from './shared-work.js';
import { BREAKER_STATE_VALUE, MAX_TIMER_MS, redactUrlCredentials, type CounterSeries, type HistogramSeries, type Logger } from '../core/index.js';
import type {
  CallOptions, GraphQLVariables, Network, RawGrpcAttempt, ProbeResult, RequestBudget, Upstream, UpstreamEndpoints, UpstreamHealth, UpstreamInstruments, UpstreamPolicy,
} from './types.js';

export interface SuiUpstreamOptions {
  network: Network;
  endpoints: UpstreamEndpoints;
  policy: UpstreamPolicy;
  env?: RetryEnv;
  /** Where the breakers' openings and closings are reported (docs/operations.md); absent: nowhere. */
  logger?: Logger;
}

/** Event-loop utilization over an attempt above which a timeout is ours, not the node's. */
const STARVED_UTILIZATION = 0.9;

/** The series one attempt is recorded on. */
interface AttemptSeries {
  counted: CounterSeries;
  timed: HistogramSeries;
}

function attemptSeriesBook(): Record<'grpc' | 'graphql', Map<string, Map<string, AttemptSeries>>> {
  return { grpc: new Map(), graphql: new Map() };
}

/**
 * A network's upstream over Sui's gRPC v2 (native HTTP/2 on the transport `policy.grpcTransport`
 * names) and GraphQL (fetch). Calls pass a bulkhead (bounded concurrency and queue), then their
 * group's circuit breaker, then bounded retries of idempotent reads, all within the call's (or
 * its request's) deadline.
 *
 * The breaker and retries are our own small classes rather than cockatiel's: cockatiel's
 * breaker counts whatever its `handleWhen` says per call but has no notion of a failure raised
 * by us (budget cut short, caller gone, queue full) vs. by the node, and its retry does not
 * take a deadline shared across several calls; both would need wrapping that is longer than
 * the ~60 lines they replace.
 */
export class SuiUpstream implements Upstream {
  readonly network: Network;
  readonly endpoints: UpstreamEndpoints;
  readonly grpc: SuiGrpcClient;
  /** What carries the typed calls (`grpc`'s transport), for clients with a default deadline. */
  readonly #transport: RpcTransport;
  /** The grpc-js transport, when it carries the typed calls (closed with the upstream). */
  readonly #grpcJs: ReturnType<typeof createGrpcTransport> | undefined;
  /** One HTTP/2 session for the proxy's raw calls and, with the `h2` transport, the typed ones. */
  readonly #raw: RawGrpcChannel;
  readonly #policy: UpstreamPolicy;
  readonly #env: RetryEnv;
  readonly #logger: Logger | undefined;
  readonly #breakers = new Map<string, CircuitBreaker>();
  /** Per breaker group, when (performance.now()) the node last answered a call, whatever the answer. */
  readonly #lastAnswerAt = new Map<string, number>();
  readonly #bulkhead: Bulkhead;
  #instruments: UpstreamInstruments | undefined;
  /** By API, method and outcome, the series an attempt is recorded on: resolved once, no key built per call. */
  #attemptSeries = attemptSeriesBook();
  /** The breaker state last written to the gauge per group: it is written again only when it changes. */
  readonly #recordedBreakerStates = new Map<string, BreakerState>();

  constructor(options: SuiUpstreamOptions) {
    this.network = options.network;
    this.endpoints = options.endpoints;
    this.#policy = options.policy;
    this.#env = options.env ?? realRetryEnv;
    this.#logger = options.logger;
    // grpc-js's keepalive settings (grpc-channel.ts), so both transports notice a dead connection alike.
    this.#raw = new RawGrpcChannel(options.endpoints.grpcUrl, { keepalive: { intervalMs: 30_000, timeoutMs: 10_000 } });
    this.#grpcJs = options.policy.grpcTransport === 'grpc-js' ? createGrpcTransport(options.endpoints.grpcUrl) : undefined;
    this.#transport = this.#grpcJs ?? new Http2GrpcTransport(this.#raw);
    this.grpc = new SuiGrpcClient({ network: options.network, transport: this.#transport });
    this.#bulkhead = new Bulkhead({
      maxConcurrent: options.policy.maxConcurrentCalls, maxQueued: options.policy.maxQueuedCalls,
      maxConcurrentPerTenant: options.policy.maxConcurrentCallsPerTenant, maxQueuedPerTenant: options.policy.maxQueuedCallsPerTenant,
    });
  }

  grpcWithDeadline(timeoutMs = this.#policy.attemptTimeoutMs, deadlineAt = Infinity): SuiGrpcClient {
    return new SuiGrpcClient({ network: this.network, transport: new DefaultDeadlineTransport(this.#transport, timeoutMs, deadlineAt) });
  }

  call<T>(operation: string, invoke: (options: RpcOptions) => PromiseLike<T>, options: CallOptions = {}): Promise<T> {
    const name = `${this.network}/grpc`;
    return this.#guarded(options.group ?? 'grpc', 'grpc', operation, options, async (timeoutMs, cancel) => {
      try {
        return await invoke(this.#rpcOptions(timeoutMs, cancel));
      } catch (error) {
        if (isCancelled(cancel)) throw new UpstreamError('cancelled', name, operation, `${operation}: cancelled by the caller`, { cause: error, local: true });
        throw fromGrpcError(name, operation, error, options.classify);
      }
    });
  }

  graphql<T>(query: string, variables?: GraphQLVariables, options: CallOptions & { operation?: string } = {}): Promise<T> {
    const name = `${this.network}/graphql`;
    const operation = options.operation ?? 'graphql';
    return this.#guarded(options.group ?? 'graphql', 'graphql', operation, options, (timeoutMs, cancel) =>
      postGraphQL<T>(this.endpoints.graphqlUrl, name, operation, query, variables, timeoutMs, signalOf(cancel)));
  }

  graphqlPassThrough(body: string, options: CallOptions = {}): Promise<GraphQLPassThroughResponse> {
    const name = `${this.network}/graphql`;
    return this.#guarded(options.group ?? 'graphql', 'graphql', 'pass-through', options, (timeoutMs, cancel) =>
      passGraphQL(this.endpoints.graphqlUrl, name, body, timeoutMs, signalOf(cancel)));
  }

  rawGrpc<T>(operation: string, attempt: RawGrpcAttempt<T>, options: CallOptions = {}): Promise<T> {
    const channel = this.#raw;
    return this.#guarded(options.group ?? 'grpc', 'grpc', operation, options, (timeoutMs, cancel) => attempt(channel, timeoutMs, signalOf(cancel)));
  }

  budget(startedAt: number, signal: CallCancel, tenant?: string): RequestBudget {
    return { deadlineAt: startedAt + this.#policy.deadlineMs, signal, tenant };
  }

  forRequest(budget: RequestBudget): Upstream {
    return new RequestUpstream(this, budget, this.#policy.requestFanOut);
  }

  awaitShared<T>(operation: string, work: Promise<T>): Promise<T> {
    return waitWithin(work, Date.now() + this.#policy.deadlineMs, undefined, this.network, operation);
  }

  breakers(): Record<string, BreakerState> {
    return Object.fromEntries([...this.#breakers].map(([group, breaker]) => [group, breaker.state]));
  }

  instrument(instruments: UpstreamInstruments): void {
    this.#instruments = instruments;
    this.#attemptSeries = attemptSeriesBook();
    for (const [group, breaker] of this.#breakers) this.#recordBreaker(group, breaker);
  }

  async health(): Promise<UpstreamHealth> {
    const timeout = this.#policy.healthTimeoutMs;
    let chainId: string | undefined;
    let checkpointHeight: string | undefined;
    const grpc = await this.#probe('grpc', async () => {
      const { response } = await this.grpc.ledgerService.getServiceInfo({}, { timeout });
      chainId = response.chainId;
      checkpointHeight = response.checkpointHeight?.toString();
    });
    const graphql = await this.#probe('graphql', () =>
      postGraphQL(this.endpoints.graphqlUrl, `${this.network}/graphql`, 'health', '{ chainIdentifier }', undefined, timeout));
    const ups = [grpc.status, graphql.status].filter((s) => s === 'up').length;
    return {
      network: this.network,
      status: ups === 2 ? 'up' : ups === 1 ? 'degraded' : 'down',
      grpc: { ...grpc, ...(chainId ? { chainId } : {}), ...(checkpointHeight ? { checkpointHeight } : {}) },
      graphql,
    };
  }

  async close(): Promise<void> {
    this.#grpcJs?.close();
    this.#raw.close();
  }

  /**
   * The SDK call's options. A request's cancellation reaches the `h2` transport as a plain hook
   * (no AbortSignal made); grpc-js, and any caller's own AbortSignal, go as `abort`.
   */
  #rpcOptions(timeoutMs: number, cancel: CallCancel | undefined): RpcOptions {
    if (cancel === undefined) return { timeout: timeoutMs };
    if (cancel instanceof RequestCancellation && this.#grpcJs === undefined) return { timeout: timeoutMs, [REQUEST_CANCELLATION]: cancel };
    return { timeout: timeoutMs, abort: signalOf(cancel) };
  }

  #breaker(group: string): CircuitBreaker {
    let breaker = this.#breakers.get(group);
    if (!breaker) {
      breaker = new CircuitBreaker({ failureThreshold: this.#policy.breakerFailureThreshold, cooldownMs: this.#policy.breakerCooldownMs, now: this.#env.now });
      this.#breakers.set(group, breaker);
    }
    return breaker;
  }

  async #guarded<T>(
    group: string, api: 'grpc' | 'graphql', operation: string, options: CallOptions,
    attempt: (timeoutMs: number, cancel: CallCancel | undefined) => Promise<T>,
  ): Promise<T> {
    const name = `${this.network}/${api}`;
    const breaker = this.#breaker(group);
    const started = this.#env.now();
    const deadlineAt = Math.min(started + (options.deadlineMs ?? this.#policy.deadlineMs), options.deadlineAt ?? Infinity);
    const { signal } = options;
    // An open breaker fails at once: no slot, no attempt, no retry.
    if (breaker.state === 'open') throw this.#circuitOpen(name, operation, breaker);
    if (deadlineAt <= started) {
      throw new UpstreamError('timeout', name, operation, `${operation}: the request's time budget is spent`, { local: true });
    }
    // A free slot without a promise (a caller already gone then fails in its attempt, as from `acquire`).
    const release = this.#bulkhead.tryAcquire(options.tenant)
      ?? await this.#bulkhead.acquire(Math.min(deadlineAt - started, MAX_TIMER_MS), signal, options.tenant).catch((error: unknown) => {
        throw refusalError(error, name, operation);
      });
    try {
      // The retry policy's six fields, not a copy of the whole upstream policy per call.
      const policy = this.#policy;
      const retryPolicy: RetryPolicy = {
        deadlineMs: deadlineAt - this.#env.now(), deadlineAt, attemptTimeoutMs: policy.attemptTimeoutMs,
        retries: policy.retries, baseDelayMs: policy.retryBaseDelayMs, maxDelayMs: policy.retryMaxDelayMs,
      };
      return await withRetries(retryPolicy, this.#env, options.idempotent ?? false, async (timeoutMs) => {
        if (isCancelled(signal)) throw new UpstreamError('cancelled', name, operation, `${operation}: cancelled by the caller`, { local: true });
        if (!breaker.tryAcquire()) throw this.#circuitOpen(name, operation, breaker);
        const busy = performance.eventLoopUtilization();
        const attemptStarted = performance.now();
        try {
          const result = await attempt(timeoutMs, signal);
          this.#lastAnswerAt.set(group, performance.now());
          if (breaker.recordSuccess()) this.#reportClosed(api, group);
          this.#recordAttempt(api, operation, 'ok', attemptStarted, group, breaker);
          return result;
        } catch (error) {
          let mapped = error instanceof UpstreamError ? error : new UpstreamError('bad_response', name, operation, String(error), { cause: error });
          // An attempt cut short by the request's own budget timed out because of the budget, not the node.
          // So did one that ran while this process was too busy to read the answer: the deadline
          // may have passed in our own event loop (heavy load of our own), not at the node.
          const starved = performance.eventLoopUtilization(busy).utilization > STARVED_UTILIZATION;
          if (mapped.kind === 'timeout' && !mapped.local && (timeoutMs < this.#policy.attemptTimeoutMs / 2 || starved)) {
            mapped = new UpstreamError('timeout', name, operation, mapped.message, { cause: mapped.cause, local: true });
          }
          // A node that answered other calls while this one waited is up, only busy (perhaps
          // with one tenant's heavy load): the call still times out, but opening the breaker
          // would refuse every tenant's calls for the cooldown. The breaker is for a node that
          // answers nothing.
          const answeredMeanwhile = (this.#lastAnswerAt.get(group) ?? -Infinity) > attemptStarted;
          if (!mapped.isTransportFailure && !mapped.local && mapped.kind !== 'cancelled') this.#lastAnswerAt.set(group, performance.now());
          if (mapped.isTransportFailure && !(mapped.kind === 'timeout' && answeredMeanwhile)) {
            if (breaker.recordFailure()) this.#reportOpened(api, group, breaker, mapped);
          } else if (mapped.isTransportFailure) {
            breaker.release();
          } else if (!mapped.local && mapped.kind !== 'cancelled') {
            if (breaker.recordSuccess()) this.#reportClosed(api, group);
          } else {
            breaker.release();
          }
          this.#recordAttempt(api, operation, mapped.kind, attemptStarted, group, breaker);
          throw mapped;
        }
      });
    } finally {
      release();
    }
  }

  #recordAttempt(api: 'grpc' | 'graphql', method: string, outcome: string, startedAt: number, group: string, breaker: CircuitBreaker): void {
    if (!this.#instruments) return;
    const byMethod = this.#attemptSeries[api];
    let byOutcome = byMethod.get(method);
    if (byOutcome === undefined) byMethod.set(method, (byOutcome = new Map()));
    let series = byOutcome.get(outcome);
    if (series === undefined) {
      const timed = { network: this.network, api, method };
      series = { counted: this.#instruments.upstreamCalls.series({ ...timed, outcome }), timed: this.#instruments.upstreamDuration.series(timed) };
      byOutcome.set(outcome, series);
    }
    series.counted.inc();
    series.timed.observe((performance.now() - startedAt) / 1000);
    if (this.#recordedBreakerStates.get(group) !== breaker.state) this.#recordBreaker(group, breaker);
  }

  #recordBreaker(group: string, breaker: CircuitBreaker): void {
    if (!this.#instruments) return;
    this.#recordedBreakerStates.set(group, breaker.state);
    this.#instruments.breakerState.set({ network: this.network, group }, BREAKER_STATE_VALUE[breaker.state]);
  }

  /** Once per opening, not per refused call: why callers of the group now get 503s. */
  #reportOpened(api: 'grpc' | 'graphql', group: string, breaker: CircuitBreaker, failure: UpstreamError): void {
    this.#logger?.warn({
      network: this.network, api, group, failures: breaker.failures, cooldownMs: this.#policy.breakerCooldownMs,
      // An upstream URL may carry credentials, and fetch quotes it in its errors.
      lastFailure: { kind: failure.kind, operation: failure.operation, message: redactUrlCredentials(failure.message, '[redacted]') },
    }, 'upstream circuit opened');
  }

  #reportClosed(api: 'grpc' | 'graphql', group: string): void {
    this.#logger?.info({ network: this.network, api, group }, 'upstream circuit closed');
  }

  #circuitOpen(name: string, operation: string, breaker: CircuitBreaker): UpstreamError {
    return new UpstreamError('circuit_open', name, operation, `${name} circuit open after repeated failures`, { local: true, retryAfterMs: breaker.remainingOpenMs });
  }

  async #probe(group: string, probe: () => Promise<unknown>): Promise<ProbeResult> {
    const started = this.#env.now();
    const breaker = this.#breakers.get(group)?.state ?? 'closed';
    try {
      await probe();
      return { status: 'up', breaker, latencyMs: this.#env.now() - started };
    } catch (error) {
      return { status: 'down', breaker, latencyMs: this.#env.now() - started, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
