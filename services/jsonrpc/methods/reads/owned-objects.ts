import type { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import type { JsonRpcMethod } from '../../method.js';
import { invalidParams, u64Param } from '../../params.js';
import { structTypeParam } from '../../struct-type.js';
import { MAX_PAGE_LIMIT, pageOf, validatedLimit, type PageState } from './paging.js';
import { legacyObjectData, objectOptions, objectReadMask } from './render-object.js';
import { read } from './upstream-reads.js';

/**
 * suix_getOwnedObjects on gRPC StateService.ListOwnedObjects. v2 filters owned objects by type
 * only: a `StructType` filter goes upstream; the other legacy filters are applied to each page
 * here, so a page may hold fewer than `limit` objects while `hasNextPage` is true.
 */

type Filter = Record<string, unknown>;

function typeOf(object: GrpcTypes.Object): string {
  return object.objectType ?? '';
}

function normalType(type: string): string {
  try {
    return normalizeStructTag(type);
  } catch {
    return type;
  }
}

/** The legacy filter as a predicate on a v2 object (owner known from the query). */
function predicate(filter: Filter, owner: string): (object: GrpcTypes.Object) => boolean {
  const [kind, value] = Object.entries(filter)[0] ?? [];
  switch (kind) {
    case 'MatchAll': { const all = (value as Filter[]).map((f) => predicate(f, owner)); return (o) => all.every((p) => p(o)); }
    case 'MatchAny': { const any = (value as Filter[]).map((f) => predicate(f, owner)); return (o) => any.some((p) => p(o)); }
    case 'MatchNone': { const none = (value as Filter[]).map((f) => predicate(f, owner)); return (o) => !none.some((p) => p(o)); }
    case 'Package': { const pkg = normalizeSuiAddress(String(value)); return (o) => normalType(typeOf(o)).startsWith(`${pkg}::`); }
    case 'MoveModule': {
      const { package: pkg, module } = value as { package: string; module: string };
      const prefix = `${normalizeSuiAddress(pkg)}::${module}::`;
      return (o) => normalType(typeOf(o)).startsWith(prefix);
    }
    case 'StructType': {
      const wanted = structTypeParam(String(value));
      // Without type params it matches every instantiation, as on a node.
      return (o) => { const type = normalType(typeOf(o)); return wanted.includes('<') ? type === wanted : type.split('<')[0] === wanted; };
    }
    case 'AddressOwner': { const address = normalizeSuiAddress(String(value)); return () => address === owner; }
    case 'ObjectOwner': return () => false;
    case 'ObjectId': { const id = normalizeSuiAddress(String(value)); return (o) => o.objectId === id; }
    case 'ObjectIds': { const ids = new Set((value as string[]).map((id) => normalizeSuiAddress(id))); return (o) => ids.has(o.objectId ?? ''); }
    case 'Version': { const version = u64Param(value, 'Version'); return (o) => o.version === version; }
    default: throw invalidParams(`unsupported object filter ${String(kind)}`);
  }
}

interface OwnedCursor extends PageState {
  owner: string;
  query: string;
}

export const getOwnedObjects: JsonRpcMethod = {
  name: 'suix_getOwnedObjects',
  translatesTo: 'gRPC StateService.ListOwnedObjects (StructType filter upstream; other filters applied per page)',
  unfilled: ['pages with a non-StructType filter may hold fewer than `limit` objects', 'as sui_getObject'],
  async handle(params, context) {
    const owner = normalizeSuiAddress(String(params.address));
    // A node checks this method's limit (validate_limit): over 50, or 0, is refused, not capped.
    const limit = validatedLimit(params.limit, MAX_PAGE_LIMIT);
    const query = (params.query ?? {}) as { filter?: Filter | null; options?: unknown };
    const options = objectOptions(query.options);
    const filter = query.filter ?? undefined;
    const method = 'suix_getOwnedObjects';
    const identity = JSON.stringify(filter ?? null);
    const state = context.cursors.decodeParam<OwnedCursor>(method, params.cursor);
    if (state && (state.owner !== owner || state.query !== identity)) throw invalidParams('the cursor belongs to another query', { code: 'INVALID_CURSOR' });
    // The filter is read first: an invalid StructType is -32602 before anything goes upstream.
    const keep = filter ? predicate(filter, owner) : () => true;
    const upstreamType = filter && 'StructType' in filter ? structTypeParam(String(filter.StructType)) : undefined;
    const mask = [...new Set([...objectReadMask(options), 'object_type'])];
    const page = await read(context, 'ListOwnedObjects', (rpc) => context.upstream.grpc.stateService.listOwnedObjects({
      owner,
      pageSize: limit,
      ...(upstreamType ? { objectType: upstreamType } : {}),
      ...(state ? { pageToken: Buffer.from(state.token, 'base64') } : {}),
      readMask: { paths: mask },
    }, rpc));
    const data = page.objects.filter(keep).map((object) => ({ data: legacyObjectData(object, options) }));
    return pageOf(context, method, data, page.nextPageToken, { owner, query: identity });
  },
};
