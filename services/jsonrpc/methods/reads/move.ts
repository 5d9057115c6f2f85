import { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams } from '../../params.js';
import { read } from './upstream-reads.js';

/** Normalized Move modules, structs and functions (gRPC MovePackageService). */

const ABILITY: Record<number, string> = {
  [GrpcTypes.Ability.COPY]: 'Copy', [GrpcTypes.Ability.DROP]: 'Drop', [GrpcTypes.Ability.STORE]: 'Store', [GrpcTypes.Ability.KEY]: 'Key',
};
const VISIBILITY: Record<number, string> = {
  [GrpcTypes.FunctionDescriptor_Visibility.PRIVATE]: 'Private',
  [GrpcTypes.FunctionDescriptor_Visibility.PUBLIC]: 'Public',
  [GrpcTypes.FunctionDescriptor_Visibility.FRIEND]: 'Friend',
};
const T = GrpcTypes.OpenSignatureBody_Type;
const PRIMITIVE: Record<number, string> = {
  [T.ADDRESS]: 'Address', [T.BOOL]: 'Bool', [T.U8]: 'U8', [T.U16]: 'U16', [T.U32]: 'U32', [T.U64]: 'U64', [T.U128]: 'U128', [T.U256]: 'U256',
};

/** In a node's order (Copy, Drop, Store, Key), whatever order v2 lists them in. */
function abilities(list: readonly GrpcTypes.Ability[]) {
  return { abilities: [...list].sort((a, b) => a - b).map((ability) => ABILITY[ability]).filter((name): name is string => name !== undefined) };
}

function normalizedBody(body: GrpcTypes.OpenSignatureBody | undefined): unknown {
  const type = body?.type ?? T.TYPE_UNKNOWN;
  const primitive = PRIMITIVE[type];
  if (primitive) return primitive;
  if (type === T.VECTOR) return { Vector: normalizedBody(body?.typeParameterInstantiation[0]) };
  if (type === T.TYPE_PARAMETER) return { TypeParameter: body?.typeParameter ?? 0 };
  // A datatype: `typeName` is `0xADDR::module::Name`.
  const [address = '', module = '', name = ''] = (body?.typeName ?? '').split('::');
  return { Struct: { address: normalizeSuiAddress(address), module, name, typeArguments: (body?.typeParameterInstantiation ?? []).map(normalizedBody) } };
}

function normalizedSignature(signature: GrpcTypes.OpenSignature): unknown {
  const body = normalizedBody(signature.body);
  if (signature.reference === GrpcTypes.OpenSignature_Reference.IMMUTABLE) return { Reference: body };
  if (signature.reference === GrpcTypes.OpenSignature_Reference.MUTABLE) return { MutableReference: body };
  return body;
}

function normalizedFunction(fn: GrpcTypes.FunctionDescriptor) {
  return {
    visibility: VISIBILITY[fn.visibility ?? 0] ?? 'Private',
    isEntry: fn.isEntry ?? false,
    typeParameters: fn.typeParameters.map((parameter) => abilities(parameter.constraints)),
    parameters: fn.parameters.map(normalizedSignature),
    return: fn.returns.map(normalizedSignature),
  };
}

function typeParameters(datatype: GrpcTypes.DatatypeDescriptor) {
  return datatype.typeParameters.map((parameter) => ({ constraints: abilities(parameter.constraints), isPhantom: parameter.isPhantom ?? false }));
}

function fields(list: readonly GrpcTypes.FieldDescriptor[]) {
  return [...list].sort((a, b) => (a.position ?? 0) - (b.position ?? 0)).map((field) => ({ name: field.name ?? '', type: normalizedBody(field.type) }));
}

function normalizedStruct(datatype: GrpcTypes.DatatypeDescriptor) {
  return { abilities: abilities(datatype.abilities), typeParameters: typeParameters(datatype), fields: fields(datatype.fields) };
}

function normalizedEnum(datatype: GrpcTypes.DatatypeDescriptor) {
  const variants = [...datatype.variants].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  return {
    abilities: abilities(datatype.abilities),
    typeParameters: typeParameters(datatype),
    variants: Object.fromEntries(variants.map((variant) => [variant.name ?? '', fields(variant.fields)])),
    variantDeclarationOrder: variants.map((variant) => variant.name ?? ''),
  };
}

function normalizedModule(address: string, module: GrpcTypes.Module) {
  const isEnum = (d: GrpcTypes.DatatypeDescriptor) => d.kind === GrpcTypes.DatatypeDescriptor_DatatypeKind.ENUM;
  return {
    fileFormatVersion: 6,
    address,
    name: module.name ?? '',
    friends: [],
    structs: Object.fromEntries(module.datatypes.filter((d) => !isEnum(d)).map((d) => [d.name ?? '', normalizedStruct(d)])),
    enums: Object.fromEntries(module.datatypes.filter(isEnum).map((d) => [d.name ?? '', normalizedEnum(d)])),
    // Private functions are not exposed, as on a node (entry functions are, whatever their visibility).
    exposedFunctions: Object.fromEntries(module.functions
      .filter((fn) => fn.visibility !== GrpcTypes.FunctionDescriptor_Visibility.PRIVATE || fn.isEntry)
      .map((fn) => [fn.name ?? '', normalizedFunction(fn)])),
  };
}

function packageId(value: unknown): string {
  return normalizeSuiAddress(String(value));
}

async function getPackage(context: JsonRpcContext, id: string): Promise<GrpcTypes.Package> {
  const response = await read(context, 'GetPackage', (rpc) => context.upstream.grpc.movePackageService.getPackage({ packageId: id }, rpc));
  if (!response.package) throw invalidParams(`package ${id} not found`, { code: 'NOT_FOUND' });
  return response.package;
}

async function getModule(context: JsonRpcContext, id: string, name: string): Promise<GrpcTypes.Module> {
  const pkg = await getPackage(context, id);
  const module = pkg.modules.find((entry) => entry.name === name);
  if (!module) throw invalidParams(`module ${id}::${name} not found`, { code: 'NOT_FOUND' });
  return module;
}

async function getFunction(context: JsonRpcContext, id: string, module: string, name: string): Promise<GrpcTypes.FunctionDescriptor> {
  const response = await read(context, 'GetFunction', (rpc) => context.upstream.grpc.movePackageService.getFunction({ packageId: id, moduleName: module, name }, rpc));
  if (!response.function) throw invalidParams(`function ${id}::${module}::${name} not found`, { code: 'NOT_FOUND' });
  return response.function;
}

const FRIENDS = 'friends: [] and fileFormatVersion: 6 (v2 descriptors carry neither)';

export const getNormalizedMoveModulesByPackage: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveModulesByPackage',
  translatesTo: 'gRPC MovePackageService.GetPackage',
  unfilled: [FRIENDS],
  async handle(params, context) {
    const id = packageId(params.package);
    const pkg = await getPackage(context, id);
    return Object.fromEntries(pkg.modules.map((module) => [module.name ?? '', normalizedModule(id, module)]));
  },
};

export const getNormalizedMoveModule: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveModule',
  translatesTo: 'gRPC MovePackageService.GetPackage (one module)',
  unfilled: [FRIENDS],
  async handle(params, context) {
    const id = packageId(params.package);
    return normalizedModule(id, await getModule(context, id, String(params.module_name)));
  },
};

export const getNormalizedMoveStruct: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveStruct',
  translatesTo: 'gRPC MovePackageService.GetDatatype',
  async handle(params, context) {
    const id = packageId(params.package);
    const response = await read(context, 'GetDatatype', (rpc) => context.upstream.grpc.movePackageService.getDatatype({
      packageId: id, moduleName: String(params.module_name), name: String(params.struct_name),
    }, rpc));
    const datatype = response.datatype;
    if (!datatype || datatype.kind === GrpcTypes.DatatypeDescriptor_DatatypeKind.ENUM) {
      throw invalidParams(`struct ${id}::${String(params.module_name)}::${String(params.struct_name)} not found`, { code: 'NOT_FOUND' });
    }
    return normalizedStruct(datatype);
  },
};

export const getNormalizedMoveFunction: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveFunction',
  translatesTo: 'gRPC MovePackageService.GetFunction',
  async handle(params, context) {
    return normalizedFunction(await getFunction(context, packageId(params.package), String(params.module_name), String(params.function_name)));
  },
};

export const getMoveFunctionArgTypes: JsonRpcMethod = {
  name: 'sui_getMoveFunctionArgTypes',
  translatesTo: 'gRPC MovePackageService.GetFunction',
  async handle(params, context) {
    const fn = await getFunction(context, packageId(params.package), String(params.module), String(params.function));
    return fn.parameters.map((parameter) => {
      // References are objects, so are datatypes by value; everything else (type parameters included) is pure, as on a node.
      const isObject = parameter.body?.type === T.DATATYPE;
      if (parameter.reference === GrpcTypes.OpenSignature_Reference.IMMUTABLE) return { Object: 'ByImmutableReference' };
      if (parameter.reference === GrpcTypes.OpenSignature_Reference.MUTABLE) return { Object: 'ByMutableReference' };
      return isObject ? { Object: 'ByValue' } : 'Pure';
    });
  },
};
