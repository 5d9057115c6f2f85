/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha) for services defined with
 * protobuf-ts: FileDescriptorProtos are built from the generated messages' reflection metadata
 * (one file per proto package; well-known types under their usual file names), so grpcurl,
 * Postman or grpc-js reflection clients can list services and decode messages.
 */
import type { Server, ServerDuplexStream } from '@grpc/grpc-js';
import { createDefinition } from '@protobuf-ts/grpc-backend';
import type { ServiceType } from '@protobuf-ts/runtime-rpc';
import { FileDescriptorProtoType } from './descriptor-types.js';
import { buildDescriptorSet } from './file-descriptors.js';
import type { DescriptorSet } from './file-descriptors.js';
import { reflectionTypes } from './reflection-types.js';
import type { ServerReflectionRequest, ServerReflectionResponse } from './reflection-types.js';

export { buildDescriptorSet } from './file-descriptors.js';
export type { DescriptorSet } from './file-descriptors.js';
export { FileDescriptorProtoType } from './descriptor-types.js';
export type { FileDescriptorProto } from './descriptor-types.js';
export { reflectionTypes } from './reflection-types.js';

const NOT_FOUND = 5;
const UNIMPLEMENTED = 12;

/** Answers one reflection request from a descriptor set (files are encoded once, lazily). */
export function createReflectionResponder(set: DescriptorSet): (request: ServerReflectionRequest) => ServerReflectionResponse {
  const encoded = new Map<string, Uint8Array>();
  const bytesOf = (name: string) => {
    let bytes = encoded.get(name);
    if (!bytes) {
      bytes = FileDescriptorProtoType.toBinary(set.files.get(name)!);
      encoded.set(name, bytes);
    }
    return bytes;
  };
  // A file and its transitive dependencies, the file first, as grpc's own servers answer.
  const withDependencies = (name: string) => {
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file) || !set.files.has(file)) return;
      seen.add(file);
      for (const dependency of set.files.get(file)!.dependency) walk(dependency);
    };
    walk(name);
    return [...seen].map(bytesOf);
  };
  const error = (request: ServerReflectionRequest, errorCode: number, errorMessage: string): ServerReflectionResponse => ({
    validHost: request.host,
    originalRequest: request,
    messageResponse: { oneofKind: 'errorResponse', errorResponse: { errorCode, errorMessage } },
  });
  const files = (request: ServerReflectionRequest, name: string | undefined, what: string): ServerReflectionResponse =>
    name && set.files.has(name)
      ? { validHost: request.host, originalRequest: request, messageResponse: { oneofKind: 'fileDescriptorResponse', fileDescriptorResponse: { fileDescriptorProto: withDependencies(name) } } }
      : error(request, NOT_FOUND, `${what} not found`);

  return (request) => {
    const message = request.messageRequest;
    switch (message.oneofKind) {
      case 'listServices':
        return { validHost: request.host, originalRequest: request, messageResponse: { oneofKind: 'listServicesResponse', listServicesResponse: { service: set.services.map((name) => ({ name })) } } };
      case 'fileByFilename':
        return files(request, message.fileByFilename, `file ${message.fileByFilename}`);
      case 'fileContainingSymbol': {
        const symbol = message.fileContainingSymbol.replace(/^\./, '');
        // A field or enum value names its parent's file.
        const name = set.symbols.get(symbol) ?? set.symbols.get(symbol.slice(0, symbol.lastIndexOf('.')));
        return files(request, name, `symbol ${symbol}`);
      }
      case 'allExtensionNumbersOfType':
        return set.symbols.has(message.allExtensionNumbersOfType)
          ? { validHost: request.host, originalRequest: request, messageResponse: { oneofKind: 'allExtensionNumbersResponse', allExtensionNumbersResponse: { baseTypeName: message.allExtensionNumbersOfType, extensionNumber: [] } } }
          : error(request, NOT_FOUND, `type ${message.allExtensionNumbersOfType} not found`);
      case 'fileContainingExtension':
        return error(request, NOT_FOUND, 'no extensions are defined');
      default:
        return error(request, UNIMPLEMENTED, 'unknown reflection request');
    }
  };
}

/**
 * Registers grpc.reflection.v1 and v1alpha on a grpc-js server, describing `services` (the
 * reflection services describe themselves too).
 */
export function addReflectionService(server: Server, services: readonly ServiceType[]): DescriptorSet {
  const v1 = reflectionTypes('grpc.reflection.v1');
  const v1alpha = reflectionTypes('grpc.reflection.v1alpha');
  const set = buildDescriptorSet([...services, v1.Service, v1alpha.Service]);
  const respond = createReflectionResponder(set);
  for (const types of [v1, v1alpha]) {
    server.addService(createDefinition(types.Service), {
      serverReflectionInfo: (call: ServerDuplexStream<ServerReflectionRequest, ServerReflectionResponse>) => {
        call.on('data', (request: ServerReflectionRequest) => call.write(respond(request)));
        call.on('end', () => call.end());
        call.on('error', () => call.end());
      },
    });
  }
  return set;
}
