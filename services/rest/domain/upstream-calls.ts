import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import type { ErrorCode } from '../../core/errors.js';
import { UpstreamError, upstreamApiError, type CallOptions, type GraphQLVariables, type Upstream } from '../../upstream/index.js';

/** Every gRPC read's call options: one object, not one per call. */
const READ: CallOptions = Object.freeze({ idempotent: true });

/** One gRPC read with the upstream's deadline, retries and breaker; failures as API errors. */
export async function ask<T>(upstream: Upstream, operation: string, invoke: (options: RpcOptions) => PromiseLike<{ response: T }>, notFound?: ErrorCode): Promise<T> {
  try {
    return (await upstream.call(operation, invoke, READ)).response;
  } catch (error) {
    throw upstreamApiError(error, notFound);
  }
}

/** Like `ask`, but NOT_FOUND answers `undefined`. */
export async function askOptional<T>(upstream: Upstream, operation: string, invoke: (options: RpcOptions) => PromiseLike<{ response: T }>): Promise<T | undefined> {
  try {
    return (await upstream.call(operation, invoke, READ)).response;
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === 'not_found') return undefined;
    throw upstreamApiError(error);
  }
}

/** Work shared with other requests (begun on a `sharedUpstream`), awaited within this request's budget. */
export async function awaitShared<T>(upstream: Upstream, operation: string, work: Promise<T>): Promise<T> {
  try {
    return await upstream.awaitShared(operation, work);
  } catch (error) {
    throw upstreamApiError(error);
  }
}

export async function askGraphQL<T>(upstream: Upstream, operation: string, query: string, variables?: GraphQLVariables): Promise<T> {
  try {
    return await upstream.graphql<T>(query, variables, { operation, idempotent: true });
  } catch (error) {
    throw upstreamApiError(error);
  }
}

export function fieldMask(paths: string[]) {
  return { paths };
}
