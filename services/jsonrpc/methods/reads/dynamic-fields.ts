import { isDeepStrictEqual } from 'node:util';
import { normalizeStructTag, normalizeSuiObjectId } from '@mysten/sui/utils';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams } from '../../params.js';
import { pageLimit } from './paging.js';
import { legacyObjectData } from './render-object.js';
import { readGraphQL, readOptional } from './upstream-reads.js';
import { legacyType } from '../transactions/legacy-values.js';

/** Dynamic fields of an object (GraphQL `dynamicFields`: names come with their JSON there). */

const FIELDS_QUERY = `query DynamicFields($parent: SuiAddress!, $first: Int, $after: String) {
  address(address: $parent) {
    dynamicFields(first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes {
        address version digest
        name { type { repr } json bcs }
        value {
          __typename
          ... on MoveValue { type { repr } }
          ... on MoveObject { address version digest contents { type { repr } } }
        }
      }
    }
  }
}`;

interface FieldNode {
  address: string;
  version: number;
  digest: string;
  name: { type: { repr: string }; json: unknown; bcs: string };
  value: { __typename: 'MoveValue'; type: { repr: string } } | { __typename: 'MoveObject'; address: string; version: number; digest: string; contents: { type: { repr: string } } | null } | null;
}

interface FieldsPage {
  address: { dynamicFields: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: FieldNode[] } } | null;
}

async function fieldsPage(context: JsonRpcContext, parent: string, first: number, after: string | undefined) {
  const page = await readGraphQL<FieldsPage>(context, 'dynamicFields', FIELDS_QUERY, { parent, first, after: after ?? null });
  return page.address?.dynamicFields ?? { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] };
}

function legacyName(node: FieldNode) {
  return { type: legacyType(node.name.type.repr), value: node.name.json };
}

/** The legacy DynamicFieldInfo: a dynamic object field names the child object, a plain field the Field object. */
function legacyFieldInfo(node: FieldNode) {
  const value = node.value;
  const base = { name: legacyName(node), bcsEncoding: 'base64', bcsName: node.name.bcs };
  if (value?.__typename === 'MoveObject') {
    return { ...base, type: 'DynamicObject', objectType: legacyType(value.contents?.type.repr), objectId: value.address, version: String(value.version), digest: value.digest };
  }
  return { ...base, type: 'DynamicField', objectType: legacyType(value?.type.repr), objectId: node.address, version: String(node.version), digest: node.digest };
}

interface FieldsCursor {
  parent: string;
  after: string;
}

export const getDynamicFields: JsonRpcMethod = {
  name: 'suix_getDynamicFields',
  translatesTo: 'GraphQL address.dynamicFields',
  async handle(params, context) {
    const parent = normalizeSuiObjectId(String(params.parent_object_id));
    const method = 'suix_getDynamicFields';
    const state = context.cursors.decodeParam<FieldsCursor>(method, params.cursor);
    if (state && state.parent !== parent) throw invalidParams('the cursor belongs to another query', { code: 'INVALID_CURSOR' });
    const page = await fieldsPage(context, parent, pageLimit(params.limit), state?.after);
    const more = page.pageInfo.hasNextPage && page.pageInfo.endCursor !== null;
    return {
      data: page.nodes.map(legacyFieldInfo),
      nextCursor: more ? context.cursors.encode(method, { parent, after: page.pageInfo.endCursor }) : null,
      hasNextPage: more,
    };
  },
};

/** Pages scanned looking for a name (the name's BCS would need its Move layout; the JSON does not). */
const MAX_SCAN_PAGES = 20;

function sameType(a: string, b: string): boolean {
  try {
    return normalizeStructTag(a) === normalizeStructTag(b);
  } catch {
    return a === b;
  }
}

function sameValue(given: unknown, json: unknown): boolean {
  // Numbers may arrive as numbers or strings (u64 and larger are strings in the JSON).
  if ((typeof given === 'number' || typeof given === 'bigint') && typeof json === 'string') return String(given) === json;
  return isDeepStrictEqual(given, json);
}

/** Full-content options, as a node answers this method with. */
const FULL_CONTENT = { showType: true, showOwner: true, showPreviousTransaction: true, showContent: true, showStorageRebate: true };

export const getDynamicFieldObject: JsonRpcMethod = {
  name: 'suix_getDynamicFieldObject',
  translatesTo: 'GraphQL address.dynamicFields (the name matched by type and JSON value), then gRPC LedgerService.GetObject',
  unfilled: ['as sui_getObject'],
  async handle(params, context) {
    const parent = normalizeSuiObjectId(String(params.parent_object_id));
    const name = params.name as { type: string; value: unknown };
    let after: string | undefined;
    for (let scanned = 0; scanned < MAX_SCAN_PAGES; scanned++) {
      const page = await fieldsPage(context, parent, 50, after);
      const match = page.nodes.find((node) => sameType(node.name.type.repr, name.type) && sameValue(name.value, node.name.json));
      if (match) {
        const id = match.value?.__typename === 'MoveObject' ? match.value.address : match.address;
        const found = await readOptional(context, 'GetObject', (rpc) => context.upstream.grpc.ledgerService.getObject({
          objectId: id, readMask: { paths: ['object_id', 'version', 'digest', 'object_type', 'owner', 'previous_transaction', 'storage_rebate', 'json', 'has_public_transfer'] },
        }, rpc));
        const object = found?.object;
        if (object) return { data: legacyObjectData(object, FULL_CONTENT) };
        break;
      }
      if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) break;
      after = page.pageInfo.endCursor;
    }
    return { error: { code: 'dynamicFieldNotFound', parent_object_id: parent } };
  },
};
