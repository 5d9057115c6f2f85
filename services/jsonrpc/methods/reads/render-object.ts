import { GrpcTypes } from '@mysten/sui/grpc';
import { toBase64 } from '@mysten/sui/utils';
import { valueToJson, type ProtoValue } from '../../../upstream/index.js';
import { u64 } from './upstream-reads.js';
import { legacyType } from '../transactions/legacy-values.js';

/** The legacy `ObjectDataOptions` (every flag defaults to false: only id, version and digest). */
export interface ObjectOptions {
  showType?: boolean;
  showOwner?: boolean;
  showPreviousTransaction?: boolean;
  showDisplay?: boolean;
  showContent?: boolean;
  showBcs?: boolean;
  showStorageRebate?: boolean;
}

export function objectOptions(value: unknown): ObjectOptions {
  return typeof value === 'object' && value !== null ? (value as ObjectOptions) : {};
}

/** The v2 read mask that fetches what `options` asks for, and nothing more. */
export function objectReadMask(options: ObjectOptions): string[] {
  const paths = ['object_id', 'version', 'digest'];
  if (options.showType || options.showContent || options.showBcs) paths.push('object_type');
  if (options.showOwner) paths.push('owner');
  if (options.showPreviousTransaction) paths.push('previous_transaction');
  if (options.showStorageRebate) paths.push('storage_rebate');
  if (options.showContent) paths.push('json', 'has_public_transfer', 'package');
  if (options.showBcs) paths.push('contents', 'has_public_transfer', 'package');
  if (options.showDisplay) paths.push('display');
  return [...new Set(paths)];
}

export function legacyOwner(owner: GrpcTypes.Owner | undefined): unknown {
  switch (owner?.kind) {
    case GrpcTypes.Owner_OwnerKind.ADDRESS: return { AddressOwner: owner.address };
    case GrpcTypes.Owner_OwnerKind.OBJECT: return { ObjectOwner: owner.address };
    case GrpcTypes.Owner_OwnerKind.SHARED: return { Shared: { initial_shared_version: u64(owner.version) } };
    case GrpcTypes.Owner_OwnerKind.IMMUTABLE: return 'Immutable';
    case GrpcTypes.Owner_OwnerKind.CONSENSUS_ADDRESS: return { ConsensusAddressOwner: { owner: owner.address, start_version: u64(owner.version) } };
    default: return null;
  }
}

function isPackage(object: GrpcTypes.Object): boolean {
  return object.package !== undefined || object.objectType === 'package';
}

function content(object: GrpcTypes.Object): unknown {
  if (isPackage(object)) {
    // v2 serves compiled modules, not their disassembly (see the method table).
    return { dataType: 'package', disassembled: {} };
  }
  return {
    dataType: 'moveObject',
    type: legacyType(object.objectType),
    hasPublicTransfer: object.hasPublicTransfer ?? false,
    fields: valueToJson(object.json as ProtoValue | undefined) ?? {},
  };
}

function bcs(object: GrpcTypes.Object): unknown {
  const pkg = object.package;
  if (pkg) {
    return {
      dataType: 'package',
      id: object.objectId,
      version: u64(object.version),
      moduleMap: Object.fromEntries(pkg.modules.map((module) => [module.name ?? '', toBase64(module.contents ?? new Uint8Array())])),
      typeOriginTable: pkg.typeOrigins.map((origin) => ({ module_name: origin.moduleName, datatype_name: origin.datatypeName, package: origin.packageId })),
      linkageTable: Object.fromEntries(pkg.linkage.map((link) => [link.originalId ?? '', { upgraded_id: link.upgradedId, upgraded_version: u64(link.upgradedVersion) }])),
    };
  }
  // The legacy bcsBytes are the Move struct's own bytes: v2's `contents`.
  return {
    dataType: 'moveObject',
    type: legacyType(object.objectType),
    hasPublicTransfer: object.hasPublicTransfer ?? false,
    version: u64(object.version),
    bcsBytes: toBase64(object.contents?.value ?? new Uint8Array()),
  };
}

function display(object: GrpcTypes.Object): unknown {
  const output = valueToJson(object.display?.output as ProtoValue | undefined);
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return { data: null, error: null };
  const data = Object.fromEntries(Object.entries(output).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
  const errors = valueToJson(object.display?.errors as ProtoValue | undefined);
  const failed = errors !== null && typeof errors === 'object' && Object.keys(errors).length > 0;
  return { data, error: failed ? { code: 'displayError', error: JSON.stringify(errors) } : null };
}

/** A v2 object in the legacy `ObjectData` shape, with exactly the fields `options` asked for. */
export function legacyObjectData(object: GrpcTypes.Object, options: ObjectOptions): Record<string, unknown> {
  const data: Record<string, unknown> = { objectId: object.objectId, version: u64(object.version), digest: object.digest };
  if (options.showType) data.type = isPackage(object) ? 'package' : (object.objectType === undefined ? null : legacyType(object.objectType));
  if (options.showOwner) data.owner = legacyOwner(object.owner);
  if (options.showPreviousTransaction) data.previousTransaction = object.previousTransaction ?? null;
  if (options.showStorageRebate) data.storageRebate = object.storageRebate === undefined ? null : u64(object.storageRebate);
  if (options.showDisplay) data.display = display(object);
  if (options.showContent) data.content = content(object);
  if (options.showBcs) data.bcs = bcs(object);
  return data;
}

export function notExists(objectId: string): { error: { code: 'notExists'; object_id: string } } {
  return { error: { code: 'notExists', object_id: objectId } };
}
