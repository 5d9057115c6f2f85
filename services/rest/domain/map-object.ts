import type { GrpcTypes } from '@mysten/sui/grpc';
import type { ObjectMetadata, SuiObject } from '../schemas.js';
import { fullAddress, fullType, valueToJson, type ProtoValue } from './proto-values.js';
import { imageUrl } from './web-url.js';

type ProtoObject = GrpcTypes.Object;
type ProtoOwner = GrpcTypes.Owner;

const OWNER_KIND = ['unknown', 'address', 'object', 'shared', 'immutable', 'consensus_address'] as const;

/**
 * The spec's owner string: the owning address (or parent object id) for owned objects,
 * "Shared" or "Immutable" otherwise. `ownerKind` says which.
 */
export function ownerString(owner: ProtoOwner | undefined): { owner: string; ownerKind: SuiObject['ownerKind'] } {
  const kind = OWNER_KIND[owner?.kind ?? 0] ?? 'unknown';
  if (kind === 'shared') return { owner: 'Shared', ownerKind: kind };
  if (kind === 'immutable') return { owner: 'Immutable', ownerKind: kind };
  return { owner: fullAddress(owner?.address), ownerKind: kind };
}

export function toSuiObject(object: ProtoObject, withContent: boolean): SuiObject {
  const { owner, ownerKind } = ownerString(object.owner);
  const result: SuiObject = {
    objectId: fullAddress(object.objectId),
    version: (object.version ?? 0n).toString(),
    digest: object.digest ?? '',
    type: object.package || object.objectType === 'package' ? 'package' : fullType(object.objectType),
    owner,
    ownerKind,
    storageRebate: (object.storageRebate ?? 0n).toString(),
  };
  if (object.previousTransaction) result.previousTransaction = object.previousTransaction;
  if (withContent && object.json) result.content = valueToJson(object.json as ProtoValue);
  return result;
}

function stringField(fields: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

/**
 * ObjectMetadata from the object's rendered Display (Sui's `Display<T>` standard keys: name,
 * description, image_url, project_name, project_image_url; `project_url` is not part of the
 * resource). Objects without Display yield just objectId and type.
 */
export function toObjectMetadata(object: ProtoObject): ObjectMetadata {
  const display = valueToJson(object.display?.output as ProtoValue | undefined);
  const fields = display && typeof display === 'object' && !Array.isArray(display) ? display : {};
  const metadata: ObjectMetadata = { objectId: fullAddress(object.objectId), type: fullType(object.objectType) };
  const name = stringField(fields, 'name');
  const image = imageUrl(stringField(fields, 'image_url', 'img_url', 'image'));
  const projectName = stringField(fields, 'project_name', 'creator');
  const projectImage = imageUrl(stringField(fields, 'project_image_url'));
  const description = stringField(fields, 'description');
  if (name) metadata.name = name;
  if (image) metadata.image = image;
  if (projectName) metadata.projectName = projectName;
  if (projectImage) metadata.projectImage = projectImage;
  if (description) metadata.description = description;
  return metadata;
}
