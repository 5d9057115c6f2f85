import type { EnumInfo, FieldInfo, IMessageType } from '@protobuf-ts/runtime';
import type { ServiceType } from '@protobuf-ts/runtime-rpc';
import type { DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto } from './descriptor-types.js';

/** Well-known types keep their usual file names, so clients that bundle them resolve them. */
const WELL_KNOWN_FILES: Record<string, string> = {
  'google.protobuf.Timestamp': 'google/protobuf/timestamp.proto',
  'google.protobuf.Duration': 'google/protobuf/duration.proto',
  'google.protobuf.FieldMask': 'google/protobuf/field_mask.proto',
  'google.protobuf.Struct': 'google/protobuf/struct.proto',
  'google.protobuf.Value': 'google/protobuf/struct.proto',
  'google.protobuf.ListValue': 'google/protobuf/struct.proto',
  'google.protobuf.NullValue': 'google/protobuf/struct.proto',
  'google.protobuf.Empty': 'google/protobuf/empty.proto',
  'google.protobuf.Any': 'google/protobuf/any.proto',
  'google.rpc.Status': 'google/rpc/status.proto',
};

const TYPE_MESSAGE = 11;
const TYPE_ENUM = 14;
const LABEL_OPTIONAL = 1;
const LABEL_REPEATED = 3;

/** Splits `pkg.Outer.Inner` into package and the chain of (capitalized) message names. */
function splitName(typeName: string): { pkg: string; path: string[] } {
  const parts = typeName.split('.');
  const first = parts.findIndex((part) => /^[A-Z]/.test(part));
  return first === -1 ? { pkg: parts.slice(0, -1).join('.'), path: parts.slice(-1) } : { pkg: parts.slice(0, first).join('.'), path: parts.slice(first) };
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (char) => `_${char.toLowerCase()}`);
}

function pascal(name: string): string {
  return name.replace(/(^|_)([a-z0-9])/g, (_, __, char: string) => char.toUpperCase());
}

function fileOf(typeName: string): string {
  const known = WELL_KNOWN_FILES[typeName];
  if (known) return known;
  const { pkg, path } = splitName(typeName);
  const top = `${pkg}.${path[0]}`;
  if (WELL_KNOWN_FILES[top]) return WELL_KNOWN_FILES[top]!;
  return `${pkg.replace(/\./g, '/')}/${pkg.split('.').pop()}.proto`;
}

/** Every message and enum reachable from the services, by full name. */
function collect(services: readonly ServiceType[]) {
  const messages = new Map<string, IMessageType<object>>();
  const enums = new Map<string, EnumInfo>();
  const visit = (type: IMessageType<object>) => {
    if (messages.has(type.typeName)) return;
    messages.set(type.typeName, type);
    for (const field of type.fields) {
      if (field.kind === 'message') visit(field.T() as IMessageType<object>);
      if (field.kind === 'enum') enums.set(field.T()[0], field.T());
      if (field.kind === 'map') {
        if (field.V.kind === 'message') visit(field.V.T() as IMessageType<object>);
        if (field.V.kind === 'enum') enums.set(field.V.T()[0], field.V.T());
      }
    }
  };
  for (const service of services) for (const method of service.methods) {
    visit(method.I as IMessageType<object>);
    visit(method.O as IMessageType<object>);
  }
  return { messages, enums };
}

function enumDescriptor(info: EnumInfo): EnumDescriptorProto {
  const [typeName, values, prefix = ''] = info;
  return {
    name: splitName(typeName).path.at(-1)!,
    value: Object.entries(values)
      .filter(([, number]) => typeof number === 'number')
      .map(([name, number]) => ({ name: `${prefix}${name}`, number: number as number })),
  };
}

function fieldType(field: FieldInfo | { kind: 'scalar'; T: number } | { kind: 'enum'; T: () => EnumInfo } | { kind: 'message'; T: () => IMessageType<object> }): Pick<FieldDescriptorProto, 'type' | 'typeName'> {
  if (field.kind === 'scalar') return { type: field.T as number };
  if (field.kind === 'enum') return { type: TYPE_ENUM, typeName: `.${field.T()[0]}` };
  if (field.kind === 'message') return { type: TYPE_MESSAGE, typeName: `.${(field.T() as IMessageType<object>).typeName}` };
  throw new Error('map fields are handled by the caller');
}

function messageDescriptor(type: IMessageType<object>, onDependency: (typeName: string) => void): DescriptorProto {
  const descriptor: DescriptorProto = { name: splitName(type.typeName).path.at(-1)!, field: [], nestedType: [], enumType: [], oneofDecl: [] };
  const realOneofs: string[] = [];
  for (const field of type.fields) if (field.oneof && !realOneofs.includes(field.oneof)) realOneofs.push(field.oneof);
  descriptor.oneofDecl.push(...realOneofs.map((name) => ({ name: snake(name) })));
  for (const field of type.fields) {
    const base = { name: field.name, number: field.no, jsonName: field.jsonName };
    if (field.kind === 'map') {
      const entryName = `${pascal(field.name)}Entry`;
      const value = fieldType(field.V as Parameters<typeof fieldType>[0]);
      if (value.typeName) onDependency(value.typeName.slice(1));
      descriptor.nestedType.push({
        name: entryName,
        field: [
          { name: 'key', number: 1, label: LABEL_OPTIONAL, type: field.K, jsonName: 'key' },
          { name: 'value', number: 2, label: LABEL_OPTIONAL, ...value, jsonName: 'value' },
        ],
        nestedType: [],
        enumType: [],
        oneofDecl: [],
        options: { mapEntry: true },
      });
      descriptor.field.push({ ...base, label: LABEL_REPEATED, type: TYPE_MESSAGE, typeName: `.${type.typeName}.${entryName}` });
      continue;
    }
    const typed = fieldType(field);
    if (typed.typeName) onDependency(typed.typeName.slice(1));
    const entry: FieldDescriptorProto = { ...base, ...typed, label: field.repeat ? LABEL_REPEATED : LABEL_OPTIONAL };
    if (field.oneof) entry.oneofIndex = realOneofs.indexOf(field.oneof);
    else if (field.opt) {
      // proto3 `optional`: a synthetic oneof, declared after every real one.
      entry.proto3Optional = true;
      entry.oneofIndex = descriptor.oneofDecl.length;
      descriptor.oneofDecl.push({ name: `_${field.name}` });
    }
    descriptor.field.push(entry);
  }
  return descriptor;
}

/** FileDescriptorProtos for the services and every type they use: one file per proto package. */
export interface DescriptorSet {
  readonly files: ReadonlyMap<string, FileDescriptorProto>;
  /** Fully qualified symbol (service, method, message, enum) → file name. */
  readonly symbols: ReadonlyMap<string, string>;
  readonly services: readonly string[];
}

export function buildDescriptorSet(services: readonly ServiceType[]): DescriptorSet {
  const { messages, enums } = collect(services);
  const files = new Map<string, FileDescriptorProto>();
  const symbols = new Map<string, string>();
  const fileFor = (typeName: string) => {
    const name = fileOf(typeName);
    let file = files.get(name);
    if (!file) {
      file = { name, package: splitName(typeName).pkg, dependency: [], messageType: [], enumType: [], service: [], syntax: 'proto3' };
      files.set(name, file);
    }
    return file;
  };
  const dependOn = (file: FileDescriptorProto) => (typeName: string) => {
    const dependency = fileOf(typeName);
    if (dependency !== file.name && !file.dependency.includes(dependency)) file.dependency.push(dependency);
  };

  // Messages first (parents before children by name length), then attach nested ones.
  const descriptors = new Map<string, DescriptorProto>();
  for (const typeName of [...messages.keys()].sort((a, b) => a.split('.').length - b.split('.').length || a.localeCompare(b))) {
    const file = fileFor(typeName);
    const descriptor = messageDescriptor(messages.get(typeName)!, dependOn(file));
    descriptors.set(typeName, descriptor);
    symbols.set(typeName, file.name);
    const parent = parentOf(typeName, descriptors, file);
    if (parent) parent.nestedType.push(descriptor);
    else file.messageType.push(descriptor);
  }
  for (const [typeName, info] of [...enums].sort(([a], [b]) => a.localeCompare(b))) {
    const file = fileFor(typeName);
    symbols.set(typeName, file.name);
    const parent = parentOf(typeName, descriptors, file);
    if (parent) parent.enumType.push(enumDescriptor(info));
    else file.enumType.push(enumDescriptor(info));
  }
  for (const service of services) {
    const file = fileFor(service.typeName);
    file.service.push({
      name: splitName(service.typeName).path.at(-1)!,
      method: service.methods.map((method) => {
        dependOn(file)(method.I.typeName);
        dependOn(file)(method.O.typeName);
        symbols.set(`${service.typeName}.${method.name}`, file.name);
        return { name: method.name, inputType: `.${method.I.typeName}`, outputType: `.${method.O.typeName}`, clientStreaming: method.clientStreaming || undefined, serverStreaming: method.serverStreaming || undefined };
      }),
    });
    symbols.set(service.typeName, file.name);
  }
  return { files, symbols, services: services.map((service) => service.typeName) };
}

/** The descriptor a nested type belongs in; creates empty placeholders for unreachable parents. */
function parentOf(typeName: string, descriptors: Map<string, DescriptorProto>, file: FileDescriptorProto): DescriptorProto | undefined {
  const { pkg, path } = splitName(typeName);
  if (path.length < 2) return undefined;
  let container: DescriptorProto | undefined;
  for (let depth = 1; depth < path.length; depth++) {
    const name = `${pkg}.${path.slice(0, depth).join('.')}`;
    let descriptor = descriptors.get(name);
    if (!descriptor) {
      descriptor = { name: path[depth - 1]!, field: [], nestedType: [], enumType: [], oneofDecl: [] };
      descriptors.set(name, descriptor);
      if (container) container.nestedType.push(descriptor);
      else file.messageType.push(descriptor);
    }
    container = descriptor;
  }
  return container;
}
