import { normalizeStructTag } from '@mysten/sui/utils';
import type { ObjectRecord } from '../../ledger/index.js';
import { ownerIndexKey, typeFilterMatcher } from '../../ledger/index.js';
import { readAll } from '../context.js';
import type { RequestContext } from '../context.js';
import { badUserInput } from '../errors.js';
import { pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { DynamicFieldNode, ObjectNode, PackageNode, isTombstone } from './objects.js';

export interface DynamicFieldNameArgs {
  type?: string | null;
  bcs?: string | null;
  literal?: string | null;
}

export function findDynamicField(ctx: RequestContext, parent: string, name: DynamicFieldNameArgs, kind: 'field' | 'object'): DynamicFieldNode | null {
  if (!name.type || !name.bcs) {
    throw badUserInput('Dynamic field names are given as `type` and `bcs` on simnet (`literal` is not supported)');
  }
  const type = normalizeStructTagOrPrimitive(name.type);
  const bcs = Buffer.from(name.bcs, 'base64');
  const records = readAll((page) => ctx.ledger.listDynamicFields(parent, page));
  const match = records.find(
    (o) => o.dynamicField?.kind === kind && o.dynamicField.nameType === type && Buffer.from(o.dynamicField.nameBcs).equals(bcs),
  );
  return match ? new DynamicFieldNode(ctx, match) : null;
}

function normalizeStructTagOrPrimitive(type: string): string {
  return type.includes('::') ? normalizeStructTag(type) : type;
}

export interface VersionFilterArgs {
  afterVersion?: number | null;
  beforeVersion?: number | null;
}

export function versionConnection(ctx: RequestContext, address: string, filter: VersionFilterArgs, args: PageArgs): Connection<ObjectNode> {
  const after = filter.afterVersion ?? -1;
  const before = filter.beforeVersion ?? Number.MAX_SAFE_INTEGER;
  const records = ctx.ledger
    .getObjectHistory(address)
    .filter((r): r is ObjectRecord => !isTombstone(r) && Number(r.version) > after && Number(r.version) < before);
  return paginate(records, (r) => Number(r.version), pageFromArgs(args, pageLimits('Query', 'objectVersions')), (r) => ObjectNode.of(ctx, r, 'Object'));
}

export function packageVersionConnection(ctx: RequestContext, address: string, filter: VersionFilterArgs, args: PageArgs): Connection<PackageNode> {
  const after = filter.afterVersion ?? -1;
  const before = filter.beforeVersion ?? Number.MAX_SAFE_INTEGER;
  const versions = ctx.ledger
    .listPackageVersions(address)
    .filter((p) => Number(p.version) > after && Number(p.version) < before)
    .map((p) => PackageNode.forPackage(ctx, p.packageId))
    .filter((p): p is PackageNode => p !== null);
  return paginate(versions, (p) => p.version, pageFromArgs(args, pageLimits('Query', 'packageVersions')));
}

export interface ObjectBound {
  version?: number | null;
  rootVersion?: number | null;
  atCheckpoint?: number | null;
}

/** The checkpoint whose sealing made a version visible (undefined while still pending). */
function visibleFrom(ctx: RequestContext, record: { previousTransaction: string }): bigint | undefined {
  return ctx.ledger.getTransaction(record.previousTransaction)?.checkpoint;
}

function checkCheckpointBound(ctx: RequestContext, checkpoint: number): void {
  const latest = ctx.ledger.latestCheckpoint().sequenceNumber;
  if (BigInt(checkpoint) > latest) throw badUserInput(`Checkpoint ${checkpoint} is after the latest checkpoint ${latest}`);
}

/**
 * The version of an object a bound selects, as Sui's `object(...)` and `objectAt(...)` do: an
 * exact version, the latest at or before a root version, or the latest as of a checkpoint. Null
 * when that version does not exist or the object was deleted or wrapped by then.
 */
export function boundedObject(ctx: RequestContext, address: string, bound: ObjectBound): ObjectRecord | null {
  if ([bound.version, bound.rootVersion, bound.atCheckpoint].filter((v) => v != null).length > 1) {
    throw badUserInput('At most one of a version, a root version, or a checkpoint bound can be specified when fetching an object');
  }
  if (bound.atCheckpoint != null) checkCheckpointBound(ctx, bound.atCheckpoint);
  const history = ctx.ledger.getObjectHistory(address);
  let chosen: (typeof history)[number] | undefined;
  if (bound.version != null) {
    chosen = history.find((r) => Number(r.version) === bound.version);
  } else if (bound.rootVersion != null) {
    chosen = history.findLast((r) => Number(r.version) <= bound.rootVersion!);
  } else if (bound.atCheckpoint != null) {
    chosen = history.findLast((r) => {
      const checkpoint = visibleFrom(ctx, r);
      return checkpoint !== undefined && checkpoint <= BigInt(bound.atCheckpoint!);
    });
  } else {
    chosen = history[history.length - 1];
  }
  return chosen && !isTombstone(chosen) ? chosen : null;
}

/**
 * A package of the family `address` belongs to: an exact version, the latest published at or
 * before a checkpoint, or the latest.
 */
export function boundedPackage(ctx: RequestContext, address: string, bound: { version?: number | null; atCheckpoint?: number | null }): PackageNode | null {
  if (bound.version != null && bound.atCheckpoint != null) throw badUserInput('Cannot specify both version and atCheckpoint');
  if (bound.atCheckpoint != null) checkCheckpointBound(ctx, bound.atCheckpoint);
  const versions = ctx.ledger.listPackageVersions(address).filter((pkg) => {
    if (bound.version != null) return Number(pkg.version) === bound.version;
    if (bound.atCheckpoint == null) return true;
    const record = ctx.ledger.getObjectAtVersion(pkg.packageId, pkg.version);
    const checkpoint = record && visibleFrom(ctx, record);
    return checkpoint !== undefined && checkpoint <= BigInt(bound.atCheckpoint);
  });
  const chosen = versions[versions.length - 1];
  return chosen ? PackageNode.forPackage(ctx, chosen.packageId) : null;
}

/**
 * `Query.packages`: every package written by a sealed transaction (genesis included), in chain
 * order, optionally strictly after / before a checkpoint.
 */
export function packageConnection(ctx: RequestContext, filter: { afterCheckpoint?: number | null; beforeCheckpoint?: number | null }, args: PageArgs): Connection<PackageNode> {
  const page = pageFromArgs(args, pageLimits('Query', 'packages'));
  const published: { key: [number, number]; node: PackageNode }[] = [];
  for (const { position, transaction } of ctx.ledger.iterateTransactions()) {
    const checkpoint = Number(transaction.checkpoint);
    if (filter.afterCheckpoint != null && checkpoint <= filter.afterCheckpoint) continue;
    if (filter.beforeCheckpoint != null && checkpoint >= filter.beforeCheckpoint) break;
    transaction.effects.changedObjects.forEach((change, index) => {
      if (!change.isPackage || !change.output) return;
      const record = ctx.ledger.getObjectAtVersion(change.objectId, change.output.version);
      if (record && !isTombstone(record) && record.package) published.push({ key: [position, index], node: new PackageNode(ctx, record) });
    });
  }
  return paginate(published, (p) => p.key, page, (p) => p.node);
}

export interface ObjectFilterArgs {
  owner?: string | null;
  ownerKind?: 'ADDRESS' | 'OBJECT' | 'SHARED' | 'IMMUTABLE' | null;
  type?: string | null;
}

const OWNER_KINDS = { ADDRESS: 'address', OBJECT: 'object', SHARED: 'shared', IMMUTABLE: 'immutable' } as const;

/**
 * `Query.objects`: objects owned by an address or object, or every live object of a type
 * (optionally only shared or immutable ones). Live objects are found from the chain's writes.
 */
export function objectConnection(ctx: RequestContext, filter: ObjectFilterArgs, args: PageArgs): Connection<ObjectNode> {
  const { owner, ownerKind, type } = filter;
  if (owner != null && (ownerKind === 'SHARED' || ownerKind === 'IMMUTABLE')) throw badUserInput(`An owner cannot be combined with ownerKind ${ownerKind}`);
  if (owner == null && !type) throw badUserInput('Query.objects needs an owner or a type');
  const page = pageFromArgs(args, pageLimits('Query', 'objects'));
  const matches = type ? typeFilterMatcher(type) : () => true;
  const kind = ownerKind ? OWNER_KINDS[ownerKind] : undefined;
  const candidates = owner != null ? readAll((p) => ctx.ledger.listOwnedObjects(owner, {}, p)) : ctx.liveObjects();
  const objects = candidates.filter((o) => !o.package && matches(o.type) && (kind === undefined || o.owner.kind === kind));
  // An owner's objects come in the ledger's owner-index order (ownerIndexKey); live objects by id.
  const key = owner != null ? (o: ObjectRecord) => ownerIndexKey(o) : (o: ObjectRecord) => o.objectId;
  return paginate(objects, key, page, (o) => new ObjectNode(ctx, o, 'Object'));
}
