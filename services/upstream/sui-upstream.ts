import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { CircuitBreaker } from './circuit-breaker.js';
import { fromGrpcError, UpstreamError } from './errors.js';
import { postGraphQL } from './graphql.js';
import { createGrpcTransport } from './grpc-channel.js';
import { realRetryEnv, withRetries, type RetryEnv } from './retry.js';
import type {
  CallOptions, GraphQLVariables, Network, ProbeResult, Upstream, UpstreamEndpoints, UpstreamHealth, UpstreamPolicy,
} from './types.js';

export interface SuiUpstreamOptions {
  network: Network;
  endpoints: UpstreamEndpoints;
  policy: UpstreamPolicy;
  env?: RetryEnv;
}

/** A network's upstream over Sui's gRPC v2 (grpc-js) and GraphQL (fetch). */
export class SuiUpstream implements Upstream {
  readonly network: Network;
  readonly endpoints: UpstreamEndpoints;
  readonly grpc: SuiGrpcClient;
  readonly #transport: ReturnType<typeof createGrpcTransport>;
  readonly #policy: UpstreamPolicy;
  readonly #env: RetryEnv;
  readonly #grpcBreaker: CircuitBreaker;
  readonly #graphqlBreaker: CircuitBreaker;

  constructor(options: SuiUpstreamOptions) {
    this.network = options.network;
    this.endpoints = options.endpoints;
    this.#policy = options.policy;
    this.#env = options.env ?? realRetryEnv;
    this.#transport = createGrpcTransport(options.endpoints.grpcUrl);
    this.grpc = new SuiGrpcClient({ network: options.network, transport: this.#transport });
    const breaker = { failureThreshold: options.policy.breakerFailureThreshold, cooldownMs: options.policy.breakerCooldownMs, now: this.#env.now };
    this.#grpcBreaker = new CircuitBreaker(breaker);
    this.#graphqlBreaker = new CircuitBreaker(breaker);
  }

  call<T>(operation: string, invoke: (options: RpcOptions) => PromiseLike<T>, options: CallOptions = {}): Promise<T> {
    const name = `${this.network}/grpc`;
    return this.#guarded(this.#grpcBreaker, name, operation, options, async (timeoutMs) => {
      try {
        return await invoke({ timeout: timeoutMs });
      } catch (error) {
        throw fromGrpcError(name, operation, error, options.classify);
      }
    });
  }

  graphql<T>(query: string, variables?: GraphQLVariables, options: CallOptions & { operation?: string } = {}): Promise<T> {
    const name = `${this.network}/graphql`;
    const operation = options.operation ?? 'graphql';
    return this.#guarded(this.#graphqlBreaker, name, operation, options, (timeoutMs) =>
      postGraphQL<T>(this.endpoints.graphqlUrl, name, operation, query, variables, timeoutMs));
  }

  async health(): Promise<UpstreamHealth> {
    const timeout = this.#policy.healthTimeoutMs;
    let chainId: string | undefined;
    let checkpointHeight: string | undefined;
    const grpc = await this.#probe(this.#grpcBreaker, async () => {
      const { response } = await this.grpc.ledgerService.getServiceInfo({}, { timeout });
      chainId = response.chainId;
      checkpointHeight = response.checkpointHeight?.toString();
    });
    const graphql = await this.#probe(this.#graphqlBreaker, () =>
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
    this.#transport.close();
  }

  async #guarded<T>(breaker: CircuitBreaker, name: string, operation: string, options: CallOptions, attempt: (timeoutMs: number) => Promise<T>): Promise<T> {
    const policy = { ...this.#policy, deadlineMs: options.deadlineMs ?? this.#policy.deadlineMs };
    const retryPolicy = { ...policy, baseDelayMs: policy.retryBaseDelayMs, maxDelayMs: policy.retryMaxDelayMs };
    return withRetries(retryPolicy, this.#env, options.idempotent ?? true, async (timeoutMs) => {
      if (!breaker.tryAcquire()) {
        throw new UpstreamError('unavailable', name, operation, `${name} circuit open after repeated failures`);
      }
      try {
        const result = await attempt(timeoutMs);
        breaker.recordSuccess();
        return result;
      } catch (error) {
        const mapped = error instanceof UpstreamError ? error : new UpstreamError('bad_response', name, operation, String(error), { cause: error });
        if (mapped.isTransportFailure) breaker.recordFailure();
        else breaker.recordSuccess();
        throw mapped;
      }
    });
  }

  async #probe(breaker: CircuitBreaker, probe: () => Promise<unknown>): Promise<ProbeResult> {
    const started = this.#env.now();
    try {
      await probe();
      return { status: 'up', breaker: breaker.state, latencyMs: this.#env.now() - started };
    } catch (error) {
      return { status: 'down', breaker: breaker.state, latencyMs: this.#env.now() - started, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
