import * as grpc from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer } from '@grpc/proto-loader';
import { GrpcTypes } from '@mysten/sui/grpc';
import { adaptService } from '@protobuf-ts/grpc-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addReflectionService, reflectionTypes } from './index.js';
import type { ServerReflectionRequest, ServerReflectionResponse } from './reflection-types.js';

let server: grpc.Server;
let address: string;

beforeAll(async () => {
  server = new grpc.Server();
  const implementation = Object.fromEntries(
    GrpcTypes.LedgerService.methods.map((method) => [method.localName, async () => ({})]),
  );
  implementation.getServiceInfo = async () => ({ chainId: 'reflected-chain' });
  const [definition, handlers] = adaptService(GrpcTypes.LedgerService, implementation);
  server.addService(definition, handlers);
  addReflectionService(server, [GrpcTypes.LedgerService, GrpcTypes.StateService]);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  address = `127.0.0.1:${port}`;
});

afterAll(() => server.forceShutdown());

/** Sends reflection requests on one bidi stream, as grpcurl does, and collects the answers. */
async function reflect(pkg: 'grpc.reflection.v1' | 'grpc.reflection.v1alpha', requests: ServerReflectionRequest[]): Promise<ServerReflectionResponse[]> {
  const types = reflectionTypes(pkg);
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const call = client.makeBidiStreamRequest(
    `/${pkg}.ServerReflection/ServerReflectionInfo`,
    (request: ServerReflectionRequest) => Buffer.from(types.Request.toBinary(request)),
    (bytes: Buffer) => types.Response.fromBinary(bytes),
  );
  const responses: ServerReflectionResponse[] = [];
  const done = new Promise<void>((resolve, reject) => {
    call.on('data', (response: ServerReflectionResponse) => responses.push(response));
    call.on('end', resolve);
    call.on('error', reject);
  });
  for (const request of requests) call.write(request);
  call.end();
  await done;
  client.close();
  return responses;
}

function descriptorSet(files: Uint8Array[]): Buffer {
  // FileDescriptorSet { repeated FileDescriptorProto file = 1; }
  return Buffer.concat(files.flatMap((file) => [Buffer.from([0x0a]), varint(file.length), Buffer.from(file)]));
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return Buffer.from(bytes);
}

describe.each(['grpc.reflection.v1', 'grpc.reflection.v1alpha'] as const)('server reflection %s', (pkg) => {
  it('lists the services, reflection included', async () => {
    const [response] = await reflect(pkg, [{ host: '', messageRequest: { oneofKind: 'listServices', listServices: '' } }]);
    const names = response!.messageResponse.oneofKind === 'listServicesResponse' ? response!.messageResponse.listServicesResponse.service.map((service) => service.name) : [];
    expect(names).toEqual(expect.arrayContaining(['sui.rpc.v2.LedgerService', 'sui.rpc.v2.StateService', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']));
  });

  it('returns file descriptors that protobuf tooling loads and that can call the service', async () => {
    const [response] = await reflect(pkg, [{ host: '', messageRequest: { oneofKind: 'fileContainingSymbol', fileContainingSymbol: 'sui.rpc.v2.LedgerService' } }]);
    expect(response!.messageResponse.oneofKind).toBe('fileDescriptorResponse');
    const files = response!.messageResponse.oneofKind === 'fileDescriptorResponse' ? response!.messageResponse.fileDescriptorResponse.fileDescriptorProto : [];
    const definition = loadFileDescriptorSetFromBuffer(descriptorSet(files), { longs: String });
    expect(Object.keys(definition)).toEqual(expect.arrayContaining(['sui.rpc.v2.LedgerService', 'sui.rpc.v2.Object', 'google.protobuf.Timestamp']));
    const loaded = grpc.loadPackageDefinition(definition) as unknown as { sui: { rpc: { v2: { LedgerService: grpc.ServiceClientConstructor } } } };
    const client = new loaded.sui.rpc.v2.LedgerService(address, grpc.credentials.createInsecure());
    const getServiceInfo = client.GetServiceInfo!.bind(client);
    const info = await new Promise<{ chain_id: string }>((resolve, reject) => getServiceInfo({}, (error: Error | null, value: { chain_id: string }) => (error ? reject(error) : resolve(value))));
    client.close();
    expect(info.chain_id).toBe('reflected-chain');
  });

  it('answers NOT_FOUND for an unknown symbol or file', async () => {
    const responses = await reflect(pkg, [
      { host: '', messageRequest: { oneofKind: 'fileContainingSymbol', fileContainingSymbol: 'no.such.Service' } },
      { host: '', messageRequest: { oneofKind: 'fileByFilename', fileByFilename: 'nope.proto' } },
    ]);
    for (const response of responses) {
      expect(response.messageResponse.oneofKind === 'errorResponse' && response.messageResponse.errorResponse.errorCode).toBe(5);
    }
  });
});
