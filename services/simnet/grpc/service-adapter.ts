import { Metadata, status } from '@grpc/grpc-js';
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import { createContext } from '@protobuf-ts/grpc-backend';
import type { RpcInputStream, ServerCallContext, ServiceType } from '@protobuf-ts/runtime-rpc';
import { toRpcError } from './errors.js';

type UnaryMethod = (request: object, context: ServerCallContext) => Promise<object>;
type ServerStreamingMethod = (request: object, responses: RpcInputStream<object>, context: ServerCallContext) => Promise<void>;

function grpcStatus(error: unknown): { code: number; details: string; metadata: Metadata } {
  const rpcError = toRpcError(error);
  return { code: status[rpcError.code as keyof typeof status] ?? status.INTERNAL, details: rpcError.message, metadata: new Metadata() };
}

/**
 * grpc-js handlers for a protobuf-ts service implementation (unary and server-streaming).
 *
 * Replaces @protobuf-ts/grpc-backend's `mapService` for these two kinds: its streaming path
 * ends a failed call with `call.destroy(error)`, after which grpc-js never sends the status,
 * so clients wait forever. Here failures end the call with `emit('error', status)`, which
 * grpc-js turns into trailers; thrown errors of any kind become a status, never a crash.
 */
export function serviceHandlers(service: ServiceType, implementation: object): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const fn = (implementation as Record<string, unknown>)[method.localName];
    if (typeof fn !== 'function') throw new Error(`${service.typeName} implementation is missing ${method.localName}()`);
    if (method.clientStreaming) throw new Error(`${service.typeName}.${method.name}: client streaming is not supported`);
    if (method.serverStreaming) {
      handlers[method.localName] = (call: ServerWritableStream<object, object>) => {
        const context = createContext(service, method, call);
        const responses: RpcInputStream<object> = {
          send: (message) => new Promise<void>((resolve) => call.write(message, () => resolve())),
          complete: async () => undefined,
        };
        (fn as ServerStreamingMethod)
          .call(implementation, call.request, responses, context)
          .then(
            () => call.end(),
            (error: unknown) => {
              if (!context.cancelled) call.emit('error', grpcStatus(error));
            },
          )
          // The call may already be gone; there is nobody left to tell.
          .catch(() => undefined);
      };
    } else {
      handlers[method.localName] = (call: ServerUnaryCall<object, object>, callback: sendUnaryData<object>) => {
        const context = createContext(service, method, call);
        (fn as UnaryMethod)
          .call(implementation, call.request, context)
          .then(
            (response) => callback(null, response),
            (error: unknown) => callback(grpcStatus(error)),
          )
          .catch(() => undefined);
      };
    }
  }
  return handlers;
}
