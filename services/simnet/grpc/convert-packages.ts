import { GrpcTypes } from '@mysten/sui/grpc';
import type { MoveAbility, MoveDatatypeRecord, MoveFunctionRecord, MovePackageRecord } from '../ledger/index.js';

const ABILITY: Record<MoveAbility, GrpcTypes.Ability> = {
  copy: GrpcTypes.Ability.COPY,
  drop: GrpcTypes.Ability.DROP,
  store: GrpcTypes.Ability.STORE,
  key: GrpcTypes.Ability.KEY,
};

const PRIMITIVES: Record<string, GrpcTypes.OpenSignatureBody_Type> = {
  address: GrpcTypes.OpenSignatureBody_Type.ADDRESS,
  bool: GrpcTypes.OpenSignatureBody_Type.BOOL,
  u8: GrpcTypes.OpenSignatureBody_Type.U8,
  u16: GrpcTypes.OpenSignatureBody_Type.U16,
  u32: GrpcTypes.OpenSignatureBody_Type.U32,
  u64: GrpcTypes.OpenSignatureBody_Type.U64,
  u128: GrpcTypes.OpenSignatureBody_Type.U128,
  u256: GrpcTypes.OpenSignatureBody_Type.U256,
};

/** Splits `A, B<C, D>` at top-level commas. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '<') depth++;
    else if (char === '>') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last) parts.push(last);
  return parts;
}

/** Parses the catalog's signature strings (`u64`, `T0`, `vector<u8>`, `0x…::m::S<T0>`). */
export function signatureBody(text: string): GrpcTypes.OpenSignatureBody {
  const type = text.trim();
  const primitive = PRIMITIVES[type];
  if (primitive !== undefined) return { type: primitive, typeParameterInstantiation: [] };
  const typeParameter = /^T(\d+)$/.exec(type);
  if (typeParameter) return { type: GrpcTypes.OpenSignatureBody_Type.TYPE_PARAMETER, typeParameter: Number(typeParameter[1]), typeParameterInstantiation: [] };
  const open = type.indexOf('<');
  const head = open === -1 ? type : type.slice(0, open);
  const args = open === -1 ? [] : splitTopLevel(type.slice(open + 1, -1)).map(signatureBody);
  if (head === 'vector') return { type: GrpcTypes.OpenSignatureBody_Type.VECTOR, typeParameterInstantiation: args };
  return { type: GrpcTypes.OpenSignatureBody_Type.DATATYPE, typeName: head, typeParameterInstantiation: args };
}

export function signature(text: string): GrpcTypes.OpenSignature {
  const trimmed = text.trim();
  if (trimmed.startsWith('&mut ')) return { reference: GrpcTypes.OpenSignature_Reference.MUTABLE, body: signatureBody(trimmed.slice(5)) };
  if (trimmed.startsWith('&')) return { reference: GrpcTypes.OpenSignature_Reference.IMMUTABLE, body: signatureBody(trimmed.slice(1)) };
  return { body: signatureBody(trimmed) };
}

export function datatypeToProto(packageId: string, moduleName: string, datatype: MoveDatatypeRecord): GrpcTypes.DatatypeDescriptor {
  return {
    typeName: `${packageId}::${moduleName}::${datatype.name}`,
    definingId: packageId,
    module: moduleName,
    name: datatype.name,
    abilities: datatype.abilities.map((ability) => ABILITY[ability]),
    typeParameters: datatype.typeParameters.map((parameter) => ({ constraints: parameter.constraints.map((ability) => ABILITY[ability]), isPhantom: parameter.isPhantom })),
    kind: datatype.kind === 'enum' ? GrpcTypes.DatatypeDescriptor_DatatypeKind.ENUM : GrpcTypes.DatatypeDescriptor_DatatypeKind.STRUCT,
    fields: datatype.fields.map((field, position) => ({ name: field.name, position, type: signatureBody(field.type) })),
    variants: (datatype.variants ?? []).map((variant, position) => ({
      name: variant.name,
      position,
      fields: variant.fields.map((field, index) => ({ name: field.name, position: index, type: signatureBody(field.type) })),
    })),
  };
}

export function functionToProto(fn: MoveFunctionRecord): GrpcTypes.FunctionDescriptor {
  const visibility = {
    public: GrpcTypes.FunctionDescriptor_Visibility.PUBLIC,
    private: GrpcTypes.FunctionDescriptor_Visibility.PRIVATE,
    friend: GrpcTypes.FunctionDescriptor_Visibility.FRIEND,
  }[fn.visibility];
  return {
    name: fn.name,
    visibility,
    isEntry: fn.isEntry,
    typeParameters: fn.typeParameters.map((parameter) => ({ constraints: parameter.constraints.map((ability) => ABILITY[ability]) })),
    // The TxContext parameter is implicit for callers; the node lists it, so do we.
    parameters: fn.parameters.map(signature),
    returns: fn.returns.map(signature),
  };
}

export function packageToProto(pkg: MovePackageRecord): GrpcTypes.Package {
  return {
    storageId: pkg.packageId,
    originalId: pkg.originalId,
    version: pkg.version,
    modules: pkg.modules.map((module) => ({
      name: module.name,
      datatypes: module.datatypes.map((datatype) => datatypeToProto(pkg.packageId, module.name, datatype)),
      functions: module.functions.map(functionToProto),
    })),
    typeOrigins: pkg.modules.flatMap((module) => module.datatypes.map((datatype) => ({ moduleName: module.name, datatypeName: datatype.name, packageId: pkg.originalId }))),
    linkage: [],
  };
}
