import { badUserInput } from './errors.js';

/**
 * Relay connections as Sui's GraphQL service pages them: cursors are opaque Base64 of a JSON
 * value (a number, or an array of numbers/strings, compared element by element); `first` and
 * `last` are exclusive; a page without either takes the default size from the front; a page larger
 * than the field's maximum is an error.
 */
export type CursorKey = number | string | readonly (number | string)[];

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface PageLimits {
  readonly default: number;
  readonly max: number;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Connection<T> {
  edges: Edge<T>[];
  nodes: T[];
  pageInfo: PageInfo;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64');
}

export function decodeCursor(cursor: string): CursorKey {
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  if (Buffer.from(text).toString('base64') !== cursor) throw badUserInput('Invalid Base64');
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    throw badUserInput('Invalid JSON');
  }
  if (!isCursorKey(key)) throw badUserInput('Invalid cursor');
  return key;
}

function isCursorKey(key: unknown): key is CursorKey {
  const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'string';
  return scalar(key) || (Array.isArray(key) && key.every(scalar));
}

export function compareKeys(a: CursorKey, b: CursorKey): number {
  const xs = Array.isArray(a) ? a : [a];
  const ys = Array.isArray(b) ? b : [b];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return xs.length - ys.length;
}

/** A validated page request: bounds decoded, size checked against the field's limits. */
export interface Page {
  after: CursorKey | null;
  before: CursorKey | null;
  limit: number;
  fromFront: boolean;
}

export function pageFromArgs(args: PageArgs, limits: PageLimits): Page {
  const { first, last } = args;
  if (first != null && last != null) {
    throw badUserInput("Cannot provide both 'first' and 'last' parameters for connection");
  }
  const limit = first ?? last ?? limits.default;
  if (limit < 0) throw badUserInput(`Page size of ${limit} must not be negative`);
  if (limit > limits.max) {
    throw badUserInput(`Page size of ${limit} exceeds max of ${limits.max} for connection`);
  }
  return {
    after: args.after != null ? decodeCursor(args.after) : null,
    before: args.before != null ? decodeCursor(args.before) : null,
    limit,
    fromFront: last == null,
  };
}

export function emptyConnection<T>(): Connection<T> {
  return {
    edges: [],
    nodes: [],
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
  };
}

/**
 * Pages through `items`, which must be sorted ascending by `key` with unique keys. Nodes come
 * back in ascending order whichever end the page is drawn from, as in Sui.
 */
export function paginate<T, N = T>(
  items: readonly T[],
  key: (item: T) => CursorKey,
  page: Page,
  node: (item: T) => N = (item) => item as unknown as N,
): Connection<N> {
  let lo = 0;
  let hi = items.length;
  if (page.after !== null) {
    const after = page.after;
    lo = lowerBound(items, key, (k) => compareKeys(k, after) > 0);
  }
  if (page.before !== null) {
    const before = page.before;
    hi = lowerBound(items, key, (k) => compareKeys(k, before) >= 0);
  }
  if (hi <= lo) return emptyConnection();
  if (hi - lo > page.limit) {
    if (page.fromFront) hi = lo + page.limit;
    else lo = hi - page.limit;
  }
  if (hi <= lo) return emptyConnection();
  const edges = items.slice(lo, hi).map((item) => ({ cursor: encodeCursor(key(item)), node: node(item) }));
  return {
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasPreviousPage: lo > 0,
      hasNextPage: hi < items.length,
      startCursor: edges[0]!.cursor,
      endCursor: edges[edges.length - 1]!.cursor,
    },
  };
}

/** Index of the first item whose key satisfies `pred` (monotone false → true). */
function lowerBound<T>(items: readonly T[], key: (item: T) => CursorKey, pred: (k: CursorKey) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(key(items[mid]!))) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A position-ordered source: items after a position, ascending or descending. */
export type PositionScan<T> = (options: { after?: number; descending: boolean }) => Iterable<{ position: number; item: T }>;

function positionBound(key: CursorKey | null): number | null {
  if (key === null) return null;
  if (typeof key !== 'number' || !Number.isSafeInteger(key) || key < 0) throw badUserInput('Invalid cursor');
  return key;
}

/**
 * Pages a long, position-ordered source without reading all of it: walks from the page's
 * cursor towards the other end and stops one match past the limit. As in Sui, a page drawn from
 * the front has a previous page when it starts after a cursor, and one drawn from the back has a
 * next page when it ends before a cursor.
 */
export function paginateScan<T, N>(scan: PositionScan<T>, matches: (item: T) => boolean, page: Page, node: (item: T) => N): Connection<N> {
  const after = positionBound(page.after);
  const before = positionBound(page.before);
  const found: { position: number; item: T }[] = [];
  const start = page.fromFront ? after : before;
  for (const entry of scan({ after: start ?? undefined, descending: !page.fromFront })) {
    if (page.fromFront ? before !== null && entry.position >= before : after !== null && entry.position <= after) break;
    if (!matches(entry.item)) continue;
    found.push(entry);
    if (found.length > page.limit) break;
  }
  const more = found.length > page.limit;
  const kept = found.slice(0, page.limit);
  if (!page.fromFront) kept.reverse();
  if (kept.length === 0) return emptyConnection();
  const edges = kept.map((entry) => ({ cursor: encodeCursor(entry.position), node: node(entry.item) }));
  return {
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasPreviousPage: page.fromFront ? after !== null : more,
      hasNextPage: page.fromFront ? more || before !== null : before !== null,
      startCursor: edges[0]!.cursor,
      endCursor: edges[edges.length - 1]!.cursor,
    },
  };
}
