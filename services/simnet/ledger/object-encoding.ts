import { bcs, TypeTagSerializer } from '@mysten/sui/bcs';
import { normalizeStructTag, parseStructTag } from '@mysten/sui/utils';
import { SUI_COIN_TYPE, SUI_FRAMEWORK, SUI_SYSTEM } from './constants.js';
import { suiDigest } from './hashing.js';
import type { MovePackageRecord, ObjectOwner, ObjectRecord } from './types.js';

/** Everything needed to write a Move object version; BCS and digest are derived. */
export type MoveObjectInput = Omit<ObjectRecord, 'digest' | 'bcs' | 'package'>;

const STAKED_SUI_TYPE = `${SUI_SYSTEM}::staking_pool::StakedSui`;
const COIN_PREFIX = `${SUI_FRAMEWORK}::coin::Coin<`;

function ownerToBcs(owner: ObjectOwner) {
  switch (owner.kind) {
    case 'address':
      return { AddressOwner: owner.address };
    case 'object':
      return { ObjectOwner: owner.address };
    case 'shared':
      return { Shared: { initialSharedVersion: owner.initialSharedVersion } };
    case 'immutable':
      return { Immutable: true };
  }
}

export { ownerToBcs };

/** Sui stores the four common types with compact tags; the digest depends on which one is used. */
function moveObjectTypeToBcs(type: string) {
  if (type === `${COIN_PREFIX}${SUI_COIN_TYPE}>`) return { GasCoin: true };
  if (type === STAKED_SUI_TYPE) return { StakedSui: true };
  if (type.startsWith(COIN_PREFIX) && type.endsWith('>')) {
    return { Coin: type.slice(COIN_PREFIX.length, -1) };
  }
  const tag = TypeTagSerializer.parseFromStr(type, true);
  if (!('struct' in tag)) throw new Error(`not a struct type: ${type}`);
  return { Other: tag.struct };
}

/** The `Data::Move` part of an object (what a genesis `RawObject` carries). */
export function moveObjectData(input: Pick<MoveObjectInput, 'type' | 'hasPublicTransfer' | 'version' | 'contents'>) {
  return {
    Move: {
      type: moveObjectTypeToBcs(normalizeStructTag(input.type)),
      hasPublicTransfer: input.hasPublicTransfer,
      version: input.version,
      contents: input.contents,
    },
  };
}

export function encodeMoveObject(input: MoveObjectInput): ObjectRecord {
  const type = normalizeStructTag(input.type);
  const objectBcs = bcs.Object.serialize({
    data: moveObjectData(input),
    owner: ownerToBcs(input.owner),
    previousTransaction: input.previousTransaction,
    storageRebate: input.storageRebate,
  }).toBytes();
  return {
    ...input,
    type,
    bcs: objectBcs,
    digest: suiDigest('Object', objectBcs),
  };
}

export interface PackageInput {
  readonly package: MovePackageRecord;
  readonly previousTransaction: string;
  readonly storageRebate: bigint;
  /** Stand-in module bytes (simnet has no Move bytecode; see README). */
  readonly moduleBytes: (moduleName: string) => Uint8Array;
  readonly typeOrigins: readonly { moduleName: string; datatypeName: string; package: string }[];
}

/** The `Data::Package` part of a package object. */
export function packageData(input: Pick<PackageInput, 'package' | 'moduleBytes' | 'typeOrigins'>) {
  const pkg = input.package;
  const moduleMap = new Map<string, Uint8Array>();
  for (const module of [...pkg.modules].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    moduleMap.set(module.name, input.moduleBytes(module.name));
  }
  return {
    Package: {
      id: pkg.packageId,
      version: pkg.version,
      moduleMap,
      typeOriginTable: [...input.typeOrigins],
      linkageTable: new Map(),
    },
  };
}

export function encodePackage(input: PackageInput): ObjectRecord {
  const pkg = input.package;
  const objectBcs = bcs.Object.serialize({
    data: packageData(input),
    owner: { Immutable: true },
    previousTransaction: input.previousTransaction,
    storageRebate: input.storageRebate,
  }).toBytes();
  return {
    objectId: pkg.packageId,
    version: pkg.version,
    digest: suiDigest('Object', objectBcs),
    type: 'package',
    owner: { kind: 'immutable' },
    previousTransaction: input.previousTransaction,
    storageRebate: input.storageRebate,
    hasPublicTransfer: false,
    contents: new Uint8Array(),
    bcs: objectBcs,
    json: null,
    package: pkg,
  };
}

/** Struct tag without type parameters, normalized: `0x…::module::Name`. */
export function baseType(type: string): string {
  const tag = parseStructTag(type);
  return `${tag.address}::${tag.module}::${tag.name}`;
}
