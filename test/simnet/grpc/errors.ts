import { createRequire } from 'node:module';
import type { RpcError as RpcErrorType } from '@protobuf-ts/runtime-rpc';
import { InvalidArgumentError } from '../ledger/errors.js';

// The same (CommonJS) copy @protobuf-ts/grpc-backend checks with `instanceof`: a copy loaded
// through another module format would turn every status into INTERNAL.
const { RpcError } = createRequire(import.meta.url)('@protobuf-ts/runtime-rpc') as { RpcError: typeof RpcErrorType };
type RpcError = RpcErrorType;

/** Status errors as the real node returns them (the gRPC status name is the code). */
export const invalidArgument = (message: string) => new RpcError(message, 'INVALID_ARGUMENT');
export const notFound = (message: string) => new RpcError(message, 'NOT_FOUND');
/** Any status by its gRPC name, e.g. `RESOURCE_EXHAUSTED`. */
export const statusError = (message: string, code: string) => new RpcError(message, code);
export const unimplemented = (message: string) => new RpcError(message, 'UNIMPLEMENTED');

/** Maps ledger errors to statuses; anything unexpected becomes INTERNAL instead of a crash. */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof InvalidArgumentError) return invalidArgument(error.message);
  const message = error instanceof Error ? error.message : String(error);
  return new RpcError(message, 'INTERNAL');
}

/** Wraps every method of a service implementation so thrown errors become status errors. */
export function guarded<T extends object>(implementation: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(Object.getPrototypeOf(implementation)).concat(Object.keys(implementation))) {
    const value = (implementation as Record<string, unknown>)[key];
    if (key === 'constructor' || typeof value !== 'function') continue;
    wrapped[key] = async (...args: unknown[]) => {
      try {
        return await (value as (...a: unknown[]) => unknown).apply(implementation, args);
      } catch (error) {
        throw toRpcError(error);
      }
    };
  }
  return wrapped as T;
}
