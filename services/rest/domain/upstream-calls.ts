import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import { ApiError, type ErrorCode } from '../../core/errors.js';
import { UpstreamError, type GraphQLVariables, type Upstream } from '../../upstream/index.js';

const TRANSPORT_CODE: Record<string, ErrorCode> = {
  unavailable: 'UPSTREAM_UNAVAILABLE',
  timeout: 'UPSTREAM_TIMEOUT',
  bad_response: 'UPSTREAM_BAD_RESPONSE',
};

/** An upstream failure as the API error the caller sees; `notFound` names the domain's 404. */
export function toApiError(error: unknown, notFound?: ErrorCode): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.kind === 'not_found') {
    return new ApiError(notFound ?? 'UPSTREAM_BAD_RESPONSE', notFound ? {} : { message: error.message });
  }
  if (error.kind === 'invalid_argument' || error.kind === 'rejected') return new ApiError('VALIDATION_FAILED', { message: error.message.replace(/^[^:]*: [A-Z_]+: /, '') });
  return new ApiError(TRANSPORT_CODE[error.kind] ?? 'UPSTREAM_BAD_RESPONSE', { message: `${error.upstream}: ${error.message}`, cause: error });
}

/** One gRPC read with the upstream's deadline, retries and breaker; failures as API errors. */
export async function ask<T>(upstream: Upstream, operation: string, invoke: (options: RpcOptions) => PromiseLike<{ response: T }>, notFound?: ErrorCode): Promise<T> {
  try {
    return await upstream.call(operation, async (options) => (await invoke(options)).response);
  } catch (error) {
    throw toApiError(error, notFound);
  }
}

/** Like `ask`, but NOT_FOUND answers `undefined`. */
export async function askOptional<T>(upstream: Upstream, operation: string, invoke: (options: RpcOptions) => PromiseLike<{ response: T }>): Promise<T | undefined> {
  try {
    return await upstream.call(operation, async (options) => (await invoke(options)).response);
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === 'not_found') return undefined;
    throw toApiError(error);
  }
}

export async function askGraphQL<T>(upstream: Upstream, operation: string, query: string, variables?: GraphQLVariables): Promise<T> {
  try {
    return await upstream.graphql<T>(query, variables, { operation });
  } catch (error) {
    throw toApiError(error);
  }
}

export function fieldMask(paths: string[]) {
  return { paths };
}
