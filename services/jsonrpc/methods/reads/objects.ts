import { normalizeSuiObjectId } from '@mysten/sui/utils';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams, u64Param } from '../../params.js';
import { legacyObjectData, notExists, objectOptions, objectReadMask, type ObjectOptions } from './render-object.js';
import { read, readOptional } from './upstream-reads.js';

/** Objects by id, past versions (gRPC LedgerService.GetObject / BatchGetObjects). */

/** A node's limit on ids per multi-get (QUERY_MAX_RESULT_LIMIT). */
const MAX_MULTI_GET = 50;

export function objectId(value: unknown): string {
  return normalizeSuiObjectId(String(value));
}

async function getObject(context: JsonRpcContext, id: string, options: ObjectOptions, version?: bigint) {
  const response = await readOptional(context, 'GetObject', (rpc) => context.upstream.grpc.ledgerService.getObject({
    objectId: id, ...(version === undefined ? {} : { version }), readMask: { paths: objectReadMask(options) },
  }, rpc));
  return response?.object;
}

async function batchGetObjects(context: JsonRpcContext, requests: { objectId: string; version?: bigint }[], options: ObjectOptions) {
  const response = await read(context, 'BatchGetObjects', (rpc) => context.upstream.grpc.ledgerService.batchGetObjects({
    requests, readMask: { paths: objectReadMask(options) },
  }, rpc));
  return response.objects.map((entry) => (entry.result.oneofKind === 'object' ? entry.result.object : undefined));
}

export const getObjectMethod: JsonRpcMethod = {
  name: 'sui_getObject',
  translatesTo: 'gRPC LedgerService.GetObject (read mask from the options)',
  unfilled: ['content.disassembled of packages: {} (v2 serves compiled modules only; showBcs has them)', 'content.fields: v2 JSON of the Move value (nested structs are plain objects, not {type, fields})'],
  async handle(params, context) {
    const id = objectId(params.object_id);
    const options = objectOptions(params.options);
    const object = await getObject(context, id, options);
    return object ? { data: legacyObjectData(object, options) } : notExists(id);
  },
};

export const multiGetObjects: JsonRpcMethod = {
  name: 'sui_multiGetObjects',
  translatesTo: 'gRPC LedgerService.BatchGetObjects',
  unfilled: ['as sui_getObject'],
  async handle(params, context) {
    const ids = (params.object_ids as unknown[]).map(objectId);
    if (ids.length > MAX_MULTI_GET) throw invalidParams(`at most ${MAX_MULTI_GET} object ids per call, got ${ids.length}`);
    const options = objectOptions(params.options);
    const objects = await batchGetObjects(context, ids.map((id) => ({ objectId: id })), options);
    return ids.map((id, index) => {
      const object = objects[index];
      return object ? { data: legacyObjectData(object, options) } : notExists(id);
    });
  },
};

function version(value: unknown): bigint {
  return u64Param(value, 'version');
}

type LegacyObject = ReturnType<typeof legacyObjectData>;

/**
 * The legacy ObjectRead of a past version: v2 tells "this version exists" from "it does not";
 * when it does not, the latest version (undefined: no such object) says which of the legacy
 * statuses applies.
 */
function pastObject(id: string, asked: bigint, found: LegacyObject | undefined, latestVersion: bigint | undefined) {
  if (found) return { status: 'VersionFound', details: found };
  if (latestVersion === undefined) return { status: 'ObjectNotExists', details: id };
  if (asked > latestVersion) {
    return { status: 'VersionTooHigh', details: { object_id: id, asked_version: asked.toString(), latest_version: latestVersion.toString() } };
  }
  return { status: 'VersionNotFound', details: [id, asked.toString()] };
}

export const tryGetPastObject: JsonRpcMethod = {
  name: 'sui_tryGetPastObject',
  translatesTo: 'gRPC LedgerService.GetObject (object_id, version); the latest version when that one is missing',
  unfilled: ['ObjectDeleted: never answered (v2 does not tell a deleted version apart; VersionNotFound instead)', 'as sui_getObject'],
  async handle(params, context) {
    const id = objectId(params.object_id);
    const asked = version(params.version);
    const options = objectOptions(params.options);
    const object = await getObject(context, id, options, asked);
    if (object) return pastObject(id, asked, legacyObjectData(object, options), undefined);
    const latest = await getObject(context, id, {});
    return pastObject(id, asked, undefined, latest ? latest.version ?? 0n : undefined);
  },
};

export const tryMultiGetPastObjects: JsonRpcMethod = {
  name: 'sui_tryMultiGetPastObjects',
  translatesTo: 'gRPC LedgerService.BatchGetObjects (object_id, version pairs); one more BatchGetObjects of the latest versions when some are missing',
  unfilled: ['as sui_tryGetPastObject'],
  async handle(params, context) {
    const asked = (params.past_objects as { objectId: string; version: string | number }[]).map((entry) => ({ objectId: objectId(entry.objectId), version: version(entry.version) }));
    if (asked.length > MAX_MULTI_GET) throw invalidParams(`at most ${MAX_MULTI_GET} objects per call, got ${asked.length}`);
    const options = objectOptions(params.options);
    const objects = await batchGetObjects(context, asked, options);
    // Every missing version's latest one in one more call, not one call each.
    const missing = [...new Set(asked.filter((_, index) => !objects[index]).map((entry) => entry.objectId))];
    const latest = missing.length === 0 ? [] : await batchGetObjects(context, missing.map((id) => ({ objectId: id })), {});
    const latestVersions = new Map(missing.map((id, index) => [id, latest[index] ? latest[index].version ?? 0n : undefined]));
    return asked.map((entry, index) => {
      const object = objects[index];
      return pastObject(entry.objectId, entry.version, object ? legacyObjectData(object, options) : undefined, latestVersions.get(entry.objectId));
    });
  },
};
