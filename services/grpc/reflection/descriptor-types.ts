import { MessageType, ScalarType } from '@protobuf-ts/runtime';

/**
 * The subset of google/protobuf/descriptor.proto that server reflection needs, as protobuf-ts
 * message types (field numbers from descriptor.proto), so descriptors encode like protoc's.
 */
export interface FieldDescriptorProto {
  name: string;
  number: number;
  label: number;
  type: number;
  typeName?: string;
  oneofIndex?: number;
  jsonName?: string;
  proto3Optional?: boolean;
}
export interface DescriptorProto {
  name: string;
  field: FieldDescriptorProto[];
  nestedType: DescriptorProto[];
  enumType: EnumDescriptorProto[];
  oneofDecl: { name: string }[];
  options?: { mapEntry?: boolean };
}
export interface EnumDescriptorProto {
  name: string;
  value: { name: string; number: number }[];
}
export interface MethodDescriptorProto {
  name: string;
  inputType: string;
  outputType: string;
  clientStreaming?: boolean;
  serverStreaming?: boolean;
}
export interface ServiceDescriptorProto {
  name: string;
  method: MethodDescriptorProto[];
}
export interface FileDescriptorProto {
  name: string;
  package: string;
  dependency: string[];
  messageType: DescriptorProto[];
  enumType: EnumDescriptorProto[];
  service: ServiceDescriptorProto[];
  syntax: string;
}

const STRING = ScalarType.STRING;
const REPEATED = 2; // RepeatType.UNPACKED

export const FieldDescriptorProtoType = new MessageType<FieldDescriptorProto>('google.protobuf.FieldDescriptorProto', [
  { no: 1, name: 'name', kind: 'scalar', T: STRING },
  { no: 3, name: 'number', kind: 'scalar', T: ScalarType.INT32 },
  { no: 4, name: 'label', kind: 'scalar', T: ScalarType.INT32 },
  { no: 5, name: 'type', kind: 'scalar', T: ScalarType.INT32 },
  { no: 6, name: 'type_name', kind: 'scalar', opt: true, T: STRING },
  { no: 9, name: 'oneof_index', kind: 'scalar', opt: true, T: ScalarType.INT32 },
  { no: 10, name: 'json_name', kind: 'scalar', opt: true, T: STRING },
  { no: 17, name: 'proto3_optional', kind: 'scalar', opt: true, T: ScalarType.BOOL },
]);
const MessageOptionsType = new MessageType<{ mapEntry?: boolean }>('google.protobuf.MessageOptions', [{ no: 7, name: 'map_entry', kind: 'scalar', opt: true, T: ScalarType.BOOL }]);
const OneofDescriptorProtoType = new MessageType<{ name: string }>('google.protobuf.OneofDescriptorProto', [{ no: 1, name: 'name', kind: 'scalar', T: STRING }]);
const EnumValueDescriptorProtoType = new MessageType<{ name: string; number: number }>('google.protobuf.EnumValueDescriptorProto', [
  { no: 1, name: 'name', kind: 'scalar', T: STRING },
  { no: 2, name: 'number', kind: 'scalar', T: ScalarType.INT32 },
]);
export const EnumDescriptorProtoType = new MessageType<EnumDescriptorProto>('google.protobuf.EnumDescriptorProto', [
  { no: 1, name: 'name', kind: 'scalar', T: STRING },
  { no: 2, name: 'value', kind: 'message', repeat: REPEATED, T: () => EnumValueDescriptorProtoType },
]);
export const DescriptorProtoType: MessageType<DescriptorProto> = new MessageType<DescriptorProto>('google.protobuf.DescriptorProto', [
  { no: 1, name: 'name', kind: 'scalar', T: STRING },
  { no: 2, name: 'field', kind: 'message', repeat: REPEATED, T: () => FieldDescriptorProtoType },
  { no: 3, name: 'nested_type', kind: 'message', repeat: REPEATED, T: () => DescriptorProtoType },
  { no: 4, name: 'enum_type', kind: 'message', repeat: REPEATED, T: () => EnumDescriptorProtoType },
  { no: 7, name: 'options', kind: 'message', T: () => MessageOptionsType },
  { no: 8, name: 'oneof_decl', kind: 'message', repeat: REPEATED, T: () => OneofDescriptorProtoType },
]);
const MethodDescriptorProtoType = new MessageType<MethodDescriptorProto>('google.protobuf.MethodDescriptorProto', [
  { no: 1, name: 'name', kind: 'scalar', T: STRING },
  { no: 2, name: 'input_type', kind: 'scalar', T: STRING },
  { no: 3, name: 'output_type', kind: 'scalar', T: STRING },
  { no: 5, name: 'client_streaming', kind: 'scalar', opt: true, T: ScalarType.BOOL },
  { no: 6, name: 'server_streaming', kind: 'scalar', opt: true, T: ScalarType.BOOL },
]);
const ServiceDescriptorProtoType = new MessageType<ServiceDescriptorProto>('google.protobuf.ServiceDescriptorProto', [
  { no: 1, name: 'name', kind: 'scalar', T: STRING },
  { no: 2, name: 'method', kind: 'message', repeat: REPEATED, T: () => MethodDescriptorProtoType },
]);
export const FileDescriptorProtoType = new MessageType<FileDescriptorProto>('google.protobuf.FileDescriptorProto', [
  { no: 1, name: 'name', kind: 'scalar', T: STRING },
  { no: 2, name: 'package', kind: 'scalar', T: STRING },
  { no: 3, name: 'dependency', kind: 'scalar', repeat: REPEATED, T: STRING },
  { no: 4, name: 'message_type', kind: 'message', repeat: REPEATED, T: () => DescriptorProtoType },
  { no: 5, name: 'enum_type', kind: 'message', repeat: REPEATED, T: () => EnumDescriptorProtoType },
  { no: 6, name: 'service', kind: 'message', repeat: REPEATED, T: () => ServiceDescriptorProtoType },
  { no: 12, name: 'syntax', kind: 'scalar', T: STRING },
]);
