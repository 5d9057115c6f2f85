import { coinObjectType } from './constants.js';
import type { SeededRandom } from './hashing.js';
import { MoveStructs } from './move-values.js';
import type { MoveObjectInput, PackageInput } from './object-encoding.js';
import type { MovePackageRecord, ObjectOwner } from './types.js';

export type GenesisMoveObject = Omit<MoveObjectInput, 'version' | 'previousTransaction' | 'storageRebate'>;
export type GenesisPackage = Omit<PackageInput, 'previousTransaction' | 'storageRebate'>;

export const DAY_MS = 86_400_000n;
/** 2026-01-01T00:00:00Z; the seed adds up to a year. */
export const BASE_TIMESTAMP_MS = 1_767_225_600_000n;
export const REFERENCE_GAS_PRICE = 1000n;
export const PROTOCOL_VERSION = 104n;
export const STORAGE_REBATE_PER_OBJECT = 988_000n;


export function addressOwner(address: string): ObjectOwner {
  return { kind: 'address', address };
}

function moduleBytes(packageId: string) {
  return (moduleName: string) => new TextEncoder().encode(`simnet-module:${packageId}::${moduleName}`);
}

/** Collects genesis objects, then writes them once the genesis digest is known. */
export class GenesisBuilder {
  readonly objects: GenesisMoveObject[] = [];
  readonly packages: GenesisPackage[] = [];
  readonly balanceChanges = new Map<string, bigint>();
  readonly #ids: SeededRandom;

  constructor(rng: SeededRandom) {
    this.#ids = rng.fork('object-ids');
  }

  newId(): string {
    return this.#ids.address();
  }

  add(object: GenesisMoveObject): string {
    this.objects.push(object);
    return object.objectId;
  }

  coin(owner: string, coinType: string, balance: bigint): string {
    const id = this.newId();
    const key = `${owner}|${coinType}`;
    this.balanceChanges.set(key, (this.balanceChanges.get(key) ?? 0n) + balance);
    return this.add({
      objectId: id,
      type: coinObjectType(coinType),
      owner: addressOwner(owner),
      hasPublicTransfer: true,
      contents: MoveStructs.Coin.serialize({ id, balance }).toBytes(),
      json: { id, balance: balance.toString() },
      coin: { coinType, balance },
    });
  }

  package(packageId: string, modules: MovePackageRecord['modules']): void {
    const pkg: MovePackageRecord = { packageId, version: 1n, originalId: packageId, modules };
    this.packages.push({
      package: pkg,
      moduleBytes: moduleBytes(packageId),
      typeOrigins: modules.flatMap((module) => module.datatypes.map((datatype) => ({ moduleName: module.name, datatypeName: datatype.name, package: packageId }))),
    });
  }
}
