import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import type { SuiGrpcClient } from '@mysten/sui/grpc';
import type { BreakerState } from './circuit-breaker.js';
import type { StatusClassifier } from './errors.js';
import type { Metrics } from '../core/index.js';
import type { GraphQLPassThroughResponse } from './graphql-pass-through.js';
import type { RawGrpcChannel } from './grpc-raw-channel.js';
import type { CallCancel } from './request-cancellation.js';

export type Network = 'mainnet' | 'testnet' | 'devnet';

export interface UpstreamEndpoints {
  /** `http://host:port` (plaintext HTTP/2) or `https://host[:port]` (TLS). */
  grpcUrl: string;
  graphqlUrl: string;
}

export interface UpstreamPolicy {
  /** The budget of one whole request (all its upstream calls, pages and retries), also of a lone call. */
  deadlineMs: number;
  attemptTimeoutMs: number;
  retries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  breakerFailureThreshold: number;
  breakerCooldownMs: number;
  healthTimeoutMs: number;
  /** Upstream calls in flight at once, per upstream (bulkhead). */
  maxConcurrentCalls: number;
  /** Calls waiting for a slot; past it the caller gets 503 UPSTREAM_UNAVAILABLE at once. */
  maxQueuedCalls: number;
  /**
   * Of those, the calls one tenant (organization) may have in flight at once; its further calls
   * wait in its own turn. Keeps slots free for the others whatever one tenant's calls cost, while
   * a deployment with one tenant (most self-hosted ones) keeps most of the concurrency.
   */
  maxConcurrentCallsPerTenant: number;
  /** Calls one tenant may have waiting; past it that tenant's call gets 503 at once, nobody else's. */
  maxQueuedCallsPerTenant: number;
  /** Upstream calls one request runs at once (its fan-out: stats, batches, name lists). */
  requestFanOut: number;
  /** What carries `SuiGrpcClient`'s calls: our `node:http2` transport or grpc-js (docs/architecture.md). */
  grpcTransport: UpstreamGrpcTransport;
}

export type UpstreamGrpcTransport = 'h2' | 'grpc-js';

export const defaultUpstreamPolicy: UpstreamPolicy = {
  deadlineMs: 5_000,
  attemptTimeoutMs: 2_500,
  retries: 2,
  retryBaseDelayMs: 50,
  retryMaxDelayMs: 500,
  breakerFailureThreshold: 5,
  breakerCooldownMs: 10_000,
  healthTimeoutMs: 1_000,
  maxConcurrentCalls: 32,
  maxQueuedCalls: 1_024,
  // 8 slots always left to the other tenants.
  maxConcurrentCallsPerTenant: 24,
  maxQueuedCallsPerTenant: 256,
  requestFanOut: 8,
  grpcTransport: 'h2',
};

export interface CallOptions {
  /** Only calls marked idempotent are retried; anything else (writes) gets one attempt. Default false. */
  idempotent?: boolean;
  /** Overrides the policy's total budget for this call. */
  deadlineMs?: number;
  /** The request's deadline (epoch ms): the call, its retries and its wait for a slot end by then. */
  deadlineAt?: number;
  /** Fires when the caller goes away: the call is cancelled, and that never counts against the upstream. */
  signal?: CallCancel;
  /** Whose call it is, for the bulkhead's fair queue (see RequestBudget). */
  tenant?: string | undefined;
  /** The circuit breaker this call counts toward (default: its protocol, `grpc` or `graphql`). */
  group?: string;
  /** Reads a status this method uses in its own way (see StatusClassifier). */
  classify?: StatusClassifier;
}

/** One request's share of the upstreams: where its budget ends and how to cancel it. */
export interface RequestBudget {
  deadlineAt: number;
  /** A request's own cancellation (cheap when nothing cancels), or any AbortSignal. */
  signal: CallCancel;
  /** Whose request it is (the organization): the bulkhead's queue takes tenants in turn. */
  tenant?: string | undefined;
}

export interface ProbeResult {
  status: 'up' | 'down';
  breaker: BreakerState;
  latencyMs: number;
  error?: string;
}

export interface UpstreamHealth {
  network: Network;
  status: 'up' | 'degraded' | 'down';
  grpc: ProbeResult & { chainId?: string; checkpointHeight?: string };
  graphql: ProbeResult;
}

export type GraphQLVariables = Record<string, unknown>;

/** One attempt on the raw channel: `timeoutMs` is what is left of its deadline; `signal` is the caller's cancel. */
export type RawGrpcAttempt<T> = (channel: RawGrpcChannel, timeoutMs: number, signal: AbortSignal | undefined) => Promise<T>;

/**
 * One network's upstream: Sui gRPC v2 (native HTTP/2) and GraphQL. Every call goes through
 * `call`/`graphql`, which add the deadline, bounded jittered retries (idempotent reads only), the
 * circuit breaker and error mapping; `grpc` exposes the service clients to build calls with.
 */
export interface Upstream {
  readonly network: Network;
  readonly endpoints: UpstreamEndpoints;
  readonly grpc: SuiGrpcClient;
  /**
   * The SDK client on the same connection, whose calls made without a deadline get `timeoutMs`
   * (default: the policy's attempt timeout), and never past `deadlineAt` (ms since the epoch;
   * a request's budget): for SDK work no `call` wraps (a transaction's `build()` resolving its
   * inputs, billing's reads and executions).
   */
  grpcWithDeadline(timeoutMs?: number, deadlineAt?: number): SuiGrpcClient;
  call<T>(operation: string, invoke: (options: RpcOptions) => PromiseLike<T>, options?: CallOptions): Promise<T>;
  graphql<T>(query: string, variables?: GraphQLVariables, options?: CallOptions & { operation?: string }): Promise<T>;
  /**
   * A caller's GraphQL body, answered as the node answered (status, data and errors): only
   * transport failures throw (and count toward the breaker), GraphQL errors never do.
   */
  graphqlPassThrough(body: string, options?: CallOptions): Promise<GraphQLPassThroughResponse>;
  /**
   * One call on the raw gRPC channel (the byte-level proxy), under the same bulkhead, breaker,
   * deadline and metrics as `call`. The attempt throws an UpstreamError only for what it judges
   * a failure of the transport; an answer with any gRPC status is a success.
   */
  rawGrpc<T>(operation: string, attempt: RawGrpcAttempt<T>, options?: CallOptions): Promise<T>;
  health(): Promise<UpstreamHealth>;
  /** Each breaker group's state (groups appear once used). */
  breakers(): Record<string, BreakerState>;
  /** The budget of a request that starts at `startedAt` (ms), is cancelled by `signal`, and is `tenant`'s. */
  budget(startedAt: number, signal: CallCancel, tenant?: string): RequestBudget;
  /** This upstream as one request sees it: every call within its budget and fan-out bound. */
  forRequest(budget: RequestBudget): Upstream;
  /**
   * Awaits `work` begun on another handle and shared with other callers (see `sharedUpstream`)
   * within this caller's budget: past its deadline it fails with `timeout`, on its cancel with
   * `cancelled`, and `work` goes on for the others. A lone caller's budget is the policy's.
   */
  awaitShared<T>(operation: string, work: Promise<T>): Promise<T>;
  /** Records every attempt and breaker transition on these instruments from now on. */
  instrument?(instruments: UpstreamInstruments): void;
  close(): Promise<void>;
}

/** The Prometheus instruments an upstream records on (services/core/metrics.ts). */
export type UpstreamInstruments = Pick<Metrics, 'upstreamCalls' | 'upstreamDuration' | 'breakerState'>;

export type UpstreamSet = ReadonlyMap<Network, Upstream>;
