import type { JsonRpcContext } from '../../method.js';
import { invalidParams } from '../../params.js';

/** The legacy page size: a node's default and maximum (QUERY_MAX_RESULT_LIMIT). */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 50;

/** sui_getCheckpoints' default and maximum page (a node's QUERY_MAX_RESULT_LIMIT_CHECKPOINTS). */
export const MAX_CHECKPOINT_PAGE_LIMIT = 100;

/**
 * A page size checked as a node's `validate_limit` checks it (sui_getCheckpoints,
 * suix_getOwnedObjects): absent is `max`; over `max`, or 0, is -32602 with the node's message
 * (it is not capped).
 */
export function validatedLimit(limit: unknown, max: number): number {
  if (limit === undefined || limit === null) return max;
  const value = Number(limit);
  if (value > max) throw invalidParams(`Page size limit ${value} exceeds max limit ${max}`);
  if (value < 1) throw invalidParams('Page size limit cannot be smaller than 1');
  return value;
}

/** What our cursors carry: the upstream's page token (base64) plus the query they continue. */
export interface PageState {
  token: string;
}

export function pageLimit(limit: unknown): number {
  const value = typeof limit === 'number' && limit > 0 ? limit : DEFAULT_PAGE_LIMIT;
  return Math.min(value, MAX_PAGE_LIMIT);
}

/** A legacy page: `nextCursor` is our signed cursor over the upstream's token and the query. */
export function pageOf<T>(context: JsonRpcContext, method: string, data: T[], nextToken: Uint8Array | undefined, query: object) {
  const more = nextToken !== undefined && nextToken.length > 0;
  return {
    data,
    nextCursor: more ? context.cursors.encode(method, { ...query, token: Buffer.from(nextToken).toString('base64') }) : null,
    hasNextPage: more,
  };
}
