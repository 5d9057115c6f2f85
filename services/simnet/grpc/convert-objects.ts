import { GrpcTypes } from '@mysten/sui/grpc';
import type { MovePackageRecord, ObjectOwner, ObjectRecord } from '../ledger/index.js';
import { toProtoValue } from './proto-values.js';
import type { ReadMask } from './read-mask.js';
import { packageToProto } from './convert-packages.js';

export function ownerToProto(owner: ObjectOwner): GrpcTypes.Owner {
  switch (owner.kind) {
    case 'address':
      return { kind: GrpcTypes.Owner_OwnerKind.ADDRESS, address: owner.address };
    case 'object':
      return { kind: GrpcTypes.Owner_OwnerKind.OBJECT, address: owner.address };
    case 'shared':
      return { kind: GrpcTypes.Owner_OwnerKind.SHARED, version: owner.initialSharedVersion };
    case 'immutable':
      return { kind: GrpcTypes.Owner_OwnerKind.IMMUTABLE };
  }
}

/** The full `Object` message; callers apply the read mask (heavy parts are skipped when unmasked). */
export function objectToProto(record: ObjectRecord, mask: ReadMask): GrpcTypes.Object {
  const object: GrpcTypes.Object = {
    objectId: record.objectId,
    version: record.version,
    digest: record.digest,
    owner: ownerToProto(record.owner),
    objectType: record.type,
    hasPublicTransfer: record.package ? undefined : record.hasPublicTransfer,
    previousTransaction: record.previousTransaction,
    storageRebate: record.storageRebate,
  };
  if (mask.has('bcs')) object.bcs = { name: 'Object', value: record.bcs };
  if (mask.has('contents') && !record.package) object.contents = { name: record.type, value: record.contents };
  if (mask.has('json') && !record.package) object.json = toProtoValue(record.json);
  if (record.coin) object.balance = record.coin.balance;
  if (mask.has('display') && record.display) object.display = { output: toProtoValue({ ...record.display }) };
  if (mask.has('package') && record.package) object.package = packageToProto(record.package as MovePackageRecord);
  return object;
}
