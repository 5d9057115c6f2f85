/** Page sizes, opaque cursors and position indexes shared by the ledger's listings. */
import { InvalidArgumentError, InvalidCursorError } from './errors.js';
import type { PageRequest } from './reader.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;

export function pageLimit(page: PageRequest | undefined): number {
  const limit = page?.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 0) throw new InvalidArgumentError(`invalid page size: ${limit}`);
  return Math.min(limit === 0 ? DEFAULT_PAGE : limit, MAX_PAGE);
}

/** Cursors are `kind:value` in base64url so a cursor from one listing is rejected by another. */
export function encodeCursor(kind: string, value: string): string {
  return Buffer.from(`${kind}:${value}`, 'utf8').toString('base64url');
}

export function decodeCursor(kind: string, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(`${kind}:`)) throw new InvalidCursorError('invalid page token');
  return decoded.slice(kind.length + 1);
}

export function decodeNumberCursor(kind: string, cursor: string | undefined): number | undefined {
  const value = decodeCursor(kind, cursor);
  if (value === undefined) return undefined;
  const position = Number(value);
  if (!Number.isSafeInteger(position) || position < 0) throw new InvalidCursorError('invalid page token');
  return position;
}

export function addToIndex(index: Map<string, number[]>, key: string, position: number): void {
  const positions = index.get(key);
  if (positions) positions.push(position);
  else index.set(key, [position]);
}

/** The shortest of the applicable index lists (undefined: no index applies, scan everything). */
export function narrowest(lists: readonly (readonly number[] | undefined)[]): readonly number[] | undefined {
  let best: readonly number[] | undefined;
  for (const list of lists) if (list && (!best || list.length < best.length)) best = list;
  return best;
}

/** Index of the first element ≥ `target` in an ascending sequence. */
export function lowerBound(length: number, at: (index: number) => number, target: number): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (at(middle) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function* iterate<T>(items: readonly T[], options: { after?: number; descending?: boolean }): Iterable<{ position: number; item: T }> {
  const step = options.descending ? -1 : 1;
  let position = options.after === undefined ? (options.descending ? items.length - 1 : 0) : options.after + step;
  for (; position >= 0 && position < items.length; position += step) yield { position, item: items[position]! };
}
