import type { RpcOptions } from '@protobuf-ts/runtime-rpc';
import { UpstreamError } from '../../../upstream/index.js';
import type { JsonRpcContext } from '../../method.js';

/**
 * One idempotent gRPC read on the request's upstream (its deadline, retries and breaker).
 * Failures stay UpstreamErrors: the dispatcher turns them into JSON-RPC errors.
 */
export async function read<T>(context: JsonRpcContext, operation: string, invoke: (options: RpcOptions) => PromiseLike<{ response: T }>): Promise<T> {
  return context.upstream.call(operation, async (options) => (await invoke(options)).response, { idempotent: true });
}

/** Like `read`, but the upstream's NOT_FOUND is `undefined` (legacy shapes say "not found" in the result). */
export async function readOptional<T>(context: JsonRpcContext, operation: string, invoke: (options: RpcOptions) => PromiseLike<{ response: T }>): Promise<T | undefined> {
  try {
    return await read(context, operation, invoke);
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === 'not_found') return undefined;
    throw error;
  }
}

/** One idempotent GraphQL read on the request's upstream. */
export async function readGraphQL<T>(context: JsonRpcContext, operation: string, query: string, variables: Record<string, unknown>): Promise<T> {
  return context.upstream.graphql<T>(query, variables, { operation, idempotent: true });
}

export function mask(...paths: string[]) {
  return { readMask: { paths } };
}

/** u64/u128 values travel as decimal strings in the legacy shapes. */
export function u64(value: bigint | number | undefined): string {
  return (value ?? 0n).toString();
}
