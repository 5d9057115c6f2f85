import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import type { SuiGrpcClient } from '@mysten/sui/grpc';
import type { BreakerState } from './circuit-breaker.js';
import { Bulkhead, refusalError } from './bulkhead.js';
import type { GraphQLPassThroughResponse } from './graphql-pass-through.js';
import type { CallCancel } from './request-cancellation.js';
import type {
  CallOptions, GraphQLVariables, Network, RawGrpcAttempt, RequestBudget, Upstream, UpstreamEndpoints, UpstreamHealth,
} from './types.js';
import { waitWithin } from './shared-work.js';
import { MAX_TIMER_MS } from '../core/index.js';

/**
 * An upstream as one request sees it: every call carries the request's deadline and cancel
 * signal, and at most `fanOut` of its calls run at once (a stats read of 20 checkpoints or a
 * 100-name batch waits its turn instead of taking every slot of the upstream).
 */
export class RequestUpstream implements Upstream {
  readonly #inner: Upstream;
  readonly #budget: RequestBudget;
  readonly #fanOut: Bulkhead;

  constructor(inner: Upstream, budget: RequestBudget, fanOut: number) {
    this.#inner = inner;
    this.#budget = budget;
    this.#fanOut = new Bulkhead({ maxConcurrent: fanOut, maxQueued: Number.POSITIVE_INFINITY });
  }

  get network(): Network { return this.#inner.network; }
  get endpoints(): UpstreamEndpoints { return this.#inner.endpoints; }
  get grpc(): SuiGrpcClient { return this.#inner.grpc; }

  /** Within this request's budget: the SDK's own calls end by the request's deadline at the latest. */
  grpcWithDeadline(timeoutMs?: number, deadlineAt = Infinity): SuiGrpcClient {
    return this.#inner.grpcWithDeadline(timeoutMs, Math.min(deadlineAt, this.#budget.deadlineAt));
  }

  call<T>(operation: string, invoke: (options: RpcOptions) => PromiseLike<T>, options: CallOptions = {}): Promise<T> {
    return this.#inTurn(`${this.network}/grpc`, operation, () => this.#inner.call(operation, invoke, this.#within(options)));
  }

  graphql<T>(query: string, variables?: GraphQLVariables, options: CallOptions & { operation?: string } = {}): Promise<T> {
    return this.#inTurn(`${this.network}/graphql`, options.operation ?? 'graphql', () => this.#inner.graphql<T>(query, variables, this.#within(options)));
  }

  graphqlPassThrough(body: string, options: CallOptions = {}): Promise<GraphQLPassThroughResponse> {
    return this.#inTurn(`${this.network}/graphql`, 'pass-through', () => this.#inner.graphqlPassThrough(body, this.#within(options)));
  }

  rawGrpc<T>(operation: string, attempt: RawGrpcAttempt<T>, options: CallOptions = {}): Promise<T> {
    return this.#inTurn(`${this.network}/grpc`, operation, () => this.#inner.rawGrpc(operation, attempt, this.#within(options)));
  }

  health(): Promise<UpstreamHealth> { return this.#inner.health(); }
  breakers(): Record<string, BreakerState> { return this.#inner.breakers(); }
  budget(startedAt: number, signal: CallCancel, tenant?: string): RequestBudget { return this.#inner.budget(startedAt, signal, tenant); }
  forRequest(budget: RequestBudget): Upstream { return this.#inner.forRequest(budget); }
  awaitShared<T>(operation: string, work: Promise<T>): Promise<T> {
    return waitWithin(work, this.#budget.deadlineAt, this.#budget.signal, this.network, operation);
  }
  async close(): Promise<void> { /* the shared upstream outlives the request */ }

  #within<O extends CallOptions>(options: O): O {
    return { ...options, deadlineAt: Math.min(options.deadlineAt ?? Infinity, this.#budget.deadlineAt), signal: this.#budget.signal, tenant: this.#budget.tenant };
  }

  async #inTurn<T>(name: string, operation: string, run: () => Promise<T>): Promise<T> {
    // A free slot without a promise (a call of a request already gone then fails upstream, as from `acquire`).
    const release = this.#fanOut.tryAcquire() ?? await this.#waitInTurn(name, operation);
    try {
      return await run();
    } finally {
      release();
    }
  }

  #waitInTurn(name: string, operation: string): Promise<() => void> {
    const waitMs = Math.min(this.#budget.deadlineAt - Date.now(), MAX_TIMER_MS);
    return this.#fanOut.acquire(waitMs, this.#budget.signal).catch((error: unknown) => {
      throw refusalError(error, name, operation);
    });
  }
}
