import { RpcError } from '@protobuf-ts/runtime-rpc';
import { InvalidArgumentError } from '../ledger/errors.js';

/** Status errors as the real node returns them (the gRPC status name is the code). */
export const invalidArgument = (message: string) => new RpcError(message, 'INVALID_ARGUMENT');
export const notFound = (message: string) => new RpcError(message, 'NOT_FOUND');
/** Any status by its gRPC name, e.g. `RESOURCE_EXHAUSTED`. */
export const statusError = (message: string, code: string) => new RpcError(message, code);

/** Maps ledger errors to statuses; anything unexpected becomes INTERNAL instead of a crash. */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof InvalidArgumentError) return invalidArgument(error.message);
  const message = error instanceof Error ? error.message : String(error);
  return new RpcError(message, 'INTERNAL');
}
