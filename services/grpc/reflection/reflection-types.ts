import { MessageType, ScalarType } from '@protobuf-ts/runtime';
import { ServiceType } from '@protobuf-ts/runtime-rpc';

/** grpc/reflection/v1/reflection.proto (v1alpha has the same shape in another package). */
export interface ServerReflectionRequest {
  host: string;
  messageRequest:
    | { oneofKind: 'fileByFilename'; fileByFilename: string }
    | { oneofKind: 'fileContainingSymbol'; fileContainingSymbol: string }
    | { oneofKind: 'fileContainingExtension'; fileContainingExtension: { containingType: string; extensionNumber: number } }
    | { oneofKind: 'allExtensionNumbersOfType'; allExtensionNumbersOfType: string }
    | { oneofKind: 'listServices'; listServices: string }
    | { oneofKind: undefined };
}

export interface ServerReflectionResponse {
  validHost: string;
  originalRequest?: ServerReflectionRequest;
  messageResponse:
    | { oneofKind: 'fileDescriptorResponse'; fileDescriptorResponse: { fileDescriptorProto: Uint8Array[] } }
    | { oneofKind: 'allExtensionNumbersResponse'; allExtensionNumbersResponse: { baseTypeName: string; extensionNumber: number[] } }
    | { oneofKind: 'listServicesResponse'; listServicesResponse: { service: { name: string }[] } }
    | { oneofKind: 'errorResponse'; errorResponse: { errorCode: number; errorMessage: string } }
    | { oneofKind: undefined };
}

const STRING = ScalarType.STRING;

export function reflectionTypes(pkg: 'grpc.reflection.v1' | 'grpc.reflection.v1alpha') {
  const ExtensionRequest = new MessageType(`${pkg}.ExtensionRequest`, [
    { no: 1, name: 'containing_type', kind: 'scalar', T: STRING },
    { no: 2, name: 'extension_number', kind: 'scalar', T: ScalarType.INT32 },
  ]);
  const Request = new MessageType<ServerReflectionRequest>(`${pkg}.ServerReflectionRequest`, [
    { no: 1, name: 'host', kind: 'scalar', T: STRING },
    { no: 3, name: 'file_by_filename', kind: 'scalar', oneof: 'messageRequest', T: STRING },
    { no: 4, name: 'file_containing_symbol', kind: 'scalar', oneof: 'messageRequest', T: STRING },
    { no: 5, name: 'file_containing_extension', kind: 'message', oneof: 'messageRequest', T: () => ExtensionRequest },
    { no: 6, name: 'all_extension_numbers_of_type', kind: 'scalar', oneof: 'messageRequest', T: STRING },
    { no: 7, name: 'list_services', kind: 'scalar', oneof: 'messageRequest', T: STRING },
  ]);
  const FileDescriptorResponse = new MessageType(`${pkg}.FileDescriptorResponse`, [{ no: 1, name: 'file_descriptor_proto', kind: 'scalar', repeat: 2, T: ScalarType.BYTES }]);
  const ExtensionNumberResponse = new MessageType(`${pkg}.ExtensionNumberResponse`, [
    { no: 1, name: 'base_type_name', kind: 'scalar', T: STRING },
    { no: 2, name: 'extension_number', kind: 'scalar', repeat: 1, T: ScalarType.INT32 },
  ]);
  const ServiceResponse = new MessageType(`${pkg}.ServiceResponse`, [{ no: 1, name: 'name', kind: 'scalar', T: STRING }]);
  const ListServiceResponse = new MessageType(`${pkg}.ListServiceResponse`, [{ no: 1, name: 'service', kind: 'message', repeat: 2, T: () => ServiceResponse }]);
  const ErrorResponse = new MessageType(`${pkg}.ErrorResponse`, [
    { no: 1, name: 'error_code', kind: 'scalar', T: ScalarType.INT32 },
    { no: 2, name: 'error_message', kind: 'scalar', T: STRING },
  ]);
  const Response = new MessageType<ServerReflectionResponse>(`${pkg}.ServerReflectionResponse`, [
    { no: 1, name: 'valid_host', kind: 'scalar', T: STRING },
    { no: 2, name: 'original_request', kind: 'message', T: () => Request },
    { no: 4, name: 'file_descriptor_response', kind: 'message', oneof: 'messageResponse', T: () => FileDescriptorResponse },
    { no: 5, name: 'all_extension_numbers_response', kind: 'message', oneof: 'messageResponse', T: () => ExtensionNumberResponse },
    { no: 6, name: 'list_services_response', kind: 'message', oneof: 'messageResponse', T: () => ListServiceResponse },
    { no: 7, name: 'error_response', kind: 'message', oneof: 'messageResponse', T: () => ErrorResponse },
  ]);
  const Service = new ServiceType(`${pkg}.ServerReflection`, [
    { name: 'ServerReflectionInfo', serverStreaming: true, clientStreaming: true, options: {}, I: Request, O: Response },
  ]);
  return { Request, Response, Service };
}
