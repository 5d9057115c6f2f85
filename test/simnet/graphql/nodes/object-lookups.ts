import { normalizeStructTag } from '@mysten/sui/utils';
import type { ObjectRecord } from '../../ledger/index.js';
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
