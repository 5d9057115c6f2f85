import { Server } from '@grpc/grpc-js';
import { GrpcTypes } from '@mysten/sui/grpc';
import { createDefinition } from '@protobuf-ts/grpc-backend';
import type { ServiceType } from '@protobuf-ts/runtime-rpc';
import { serviceHandlers } from './service-adapter.js';

/** A service definition and its implementation, registered on one grpc-js server. */
export interface ServiceRegistration {
  readonly service: ServiceType;
  readonly implementation: object;
}

/** A grpc-js server (not bound: the web mux injects its connections) with the given services. */
export function createGrpcServer(registrations: readonly ServiceRegistration[]): Server {
  const server = new Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024, 'grpc.max_send_message_length': 64 * 1024 * 1024 });
  for (const { service, implementation } of registrations) {
    server.addService(createDefinition(service), serviceHandlers(service, implementation));
  }
  return server;
}

export { GrpcTypes };
