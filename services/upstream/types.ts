import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import type { SuiGrpcClient } from '@mysten/sui/grpc';
import type { BreakerState } from './circuit-breaker.js';
import type { StatusClassifier } from './errors.js';

export type Network = 'mainnet' | 'testnet' | 'devnet';

export interface UpstreamEndpoints {
  /** `http://host:port` (plaintext HTTP/2) or `https://host[:port]` (TLS). */
  grpcUrl: string;
  graphqlUrl: string;
}

export interface UpstreamPolicy {
  deadlineMs: number;
  attemptTimeoutMs: number;
  retries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  breakerFailureThreshold: number;
  breakerCooldownMs: number;
  healthTimeoutMs: number;
}

export const defaultUpstreamPolicy: UpstreamPolicy = {
  deadlineMs: 5_000,
  attemptTimeoutMs: 2_500,
  retries: 2,
  retryBaseDelayMs: 50,
  retryMaxDelayMs: 500,
  breakerFailureThreshold: 5,
  breakerCooldownMs: 10_000,
  healthTimeoutMs: 1_000,
};

export interface CallOptions {
  /** Idempotent reads are retried; anything with side effects is not. Default true. */
  idempotent?: boolean;
  /** Overrides the policy's total budget for this call. */
  deadlineMs?: number;
  /** Reads a status this method uses in its own way (see StatusClassifier). */
  classify?: StatusClassifier;
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

/**
 * One network's upstream: Sui gRPC v2 (native HTTP/2) and GraphQL. Every call goes through
 * `call`/`graphql`, which add the deadline, bounded jittered retries (idempotent reads only), the
 * circuit breaker and error mapping; `grpc` exposes the service clients to build calls with.
 */
export interface Upstream {
  readonly network: Network;
  readonly endpoints: UpstreamEndpoints;
  readonly grpc: SuiGrpcClient;
  call<T>(operation: string, invoke: (options: RpcOptions) => PromiseLike<T>, options?: CallOptions): Promise<T>;
  graphql<T>(query: string, variables?: GraphQLVariables, options?: CallOptions & { operation?: string }): Promise<T>;
  health(): Promise<UpstreamHealth>;
  close(): Promise<void>;
}

export type UpstreamSet = ReadonlyMap<Network, Upstream>;
