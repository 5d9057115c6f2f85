import { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams } from '../../params.js';
import type { Freshness } from '../../read-cache.js';
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

/** Sui's system packages (`SYSTEM_PACKAGE_ADDRESSES` in sui-types): upgraded in place at epoch changes, so their contents can change. */
const SYSTEM_PACKAGES = new Set(['0x1', '0x2', '0x3', '0xb', '0xdee9'].map((id) => normalizeSuiAddress(id)));

function freshnessOf(id: string): Freshness {
  return SYSTEM_PACKAGES.has(id) ? 'mutable' : 'immutable';
}

type NormalizedModule = ReturnType<typeof normalizedModule>;

/** Every module of the package, normalized, by name (cached: a package id's contents never change). */
async function normalizedPackage(context: JsonRpcContext, id: string): Promise<Record<string, NormalizedModule>> {
  return context.cache.read('move-package', id, async () => {
    const response = await read(context, 'GetPackage', (rpc) => context.upstream.grpc.movePackageService.getPackage({ packageId: id }, rpc));
    if (!response.package) throw invalidParams(`package ${id} not found`, { code: 'NOT_FOUND' });
    return Object.fromEntries(response.package.modules.map((module) => [module.name ?? '', normalizedModule(id, module)]));
  }, { freshness: freshnessOf(id) });
}

type NormalizedFunction = ReturnType<typeof normalizedFunction>;

async function normalizedFunctionAt(context: JsonRpcContext, id: string, module: string, name: string): Promise<NormalizedFunction> {
  return context.cache.read('move-function', `${id}::${module}::${name}`, async () => {
    const response = await read(context, 'GetFunction', (rpc) => context.upstream.grpc.movePackageService.getFunction({ packageId: id, moduleName: module, name }, rpc));
    if (!response.function) throw invalidParams(`function ${id}::${module}::${name} not found`, { code: 'NOT_FOUND' });
    return normalizedFunction(response.function);
  }, { freshness: freshnessOf(id) });
}

const FRIENDS = 'friends: [] and fileFormatVersion: 6 (v2 descriptors carry neither)';

export const getNormalizedMoveModulesByPackage: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveModulesByPackage',
  translatesTo: 'gRPC MovePackageService.GetPackage (cached)',
  unfilled: [FRIENDS],
  async handle(params, context) {
    return normalizedPackage(context, packageId(params.package));
  },
};

export const getNormalizedMoveModule: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveModule',
  translatesTo: 'gRPC MovePackageService.GetPackage (one module; the package is cached)',
  unfilled: [FRIENDS],
  async handle(params, context) {
    const id = packageId(params.package);
    const name = String(params.module_name);
    const modules = await normalizedPackage(context, id);
    if (!Object.hasOwn(modules, name)) throw invalidParams(`module ${id}::${name} not found`, { code: 'NOT_FOUND' });
    return modules[name];
  },
};

export const getNormalizedMoveStruct: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveStruct',
  translatesTo: 'gRPC MovePackageService.GetDatatype (cached)',
  async handle(params, context) {
    const id = packageId(params.package);
    const [module, name] = [String(params.module_name), String(params.struct_name)];
    const struct = await context.cache.read('move-struct', `${id}::${module}::${name}`, async () => {
      const response = await read(context, 'GetDatatype', (rpc) => context.upstream.grpc.movePackageService.getDatatype({ packageId: id, moduleName: module, name }, rpc));
      const datatype = response.datatype;
      return datatype && datatype.kind !== GrpcTypes.DatatypeDescriptor_DatatypeKind.ENUM ? normalizedStruct(datatype) : null;
    }, { freshness: freshnessOf(id), keep: (found) => found !== null });
    if (!struct) throw invalidParams(`struct ${id}::${module}::${name} not found`, { code: 'NOT_FOUND' });
    return struct;
  },
};

export const getNormalizedMoveFunction: JsonRpcMethod = {
  name: 'sui_getNormalizedMoveFunction',
  translatesTo: 'gRPC MovePackageService.GetFunction (cached)',
  async handle(params, context) {
    return normalizedFunctionAt(context, packageId(params.package), String(params.module_name), String(params.function_name));
  },
};

export const getMoveFunctionArgTypes: JsonRpcMethod = {
  name: 'sui_getMoveFunctionArgTypes',
  translatesTo: 'gRPC MovePackageService.GetFunction (shares sui_getNormalizedMoveFunction\'s cache)',
  async handle(params, context) {
    const fn = await normalizedFunctionAt(context, packageId(params.package), String(params.module), String(params.function));
    return fn.parameters.map((parameter) => {
      // References are objects, so are datatypes by value; everything else (type parameters included) is pure, as on a node.
      if (typeof parameter === 'object' && parameter !== null) {
        if ('Reference' in parameter) return { Object: 'ByImmutableReference' };
        if ('MutableReference' in parameter) return { Object: 'ByMutableReference' };
        if ('Struct' in parameter) return { Object: 'ByValue' };
      }
      return 'Pure';
    });
  },
};
