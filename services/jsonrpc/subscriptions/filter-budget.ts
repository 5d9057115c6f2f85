import { FILTER_LIMITS, filterBytes, type FilterLimits } from '../../streams/index.js';
import { JSONRPC_ERROR, JsonRpcError } from '../method.js';

/** A refused filter: -32602 naming the limit, with the limit's name and number in `data`. */
export function filterLimitExceeded(limit: string, max: number, what: string): JsonRpcError {
  return new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: the filter exceeds ${max} ${what} (limit: ${limit})`, {
    code: 'FILTER_LIMIT_EXCEEDED', limit, max,
  });
}

export function invalidFilter(why: string): JsonRpcError {
  return new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${why}`);
}

/**
 * Counts a filter's parts, depth and distinct values while it is compiled, refusing it at the
 * first limit crossed (so a huge filter costs at most the limits' worth of work). The bytes are
 * checked first, on the filter as sent.
 */
export class FilterBudget {
  parts = 0;
  readonly values = new Set<string>();
  readonly bytes: number;
  readonly #limits: FilterLimits;

  constructor(filter: unknown, limits: FilterLimits = FILTER_LIMITS) {
    this.#limits = limits;
    this.bytes = filterBytes(filter);
    if (this.bytes > limits.maxBytes) throw filterLimitExceeded('bytesPerFilter', limits.maxBytes, 'bytes');
  }

  /** One more node of the filter, at `depth` (1 for the filter itself). */
  part(depth: number): void {
    this.parts += 1;
    if (this.parts > this.#limits.maxParts) throw filterLimitExceeded('partsPerFilter', this.#limits.maxParts, 'parts');
    if (depth > this.#limits.maxDepth) throw filterLimitExceeded('depthPerFilter', this.#limits.maxDepth, 'levels of nesting');
  }

  /** One value the filter matches on (after normalization), keyed by what it is compared with. */
  value(key: string): void {
    this.values.add(key);
    if (this.values.size > this.#limits.maxDistinctValues) throw filterLimitExceeded('distinctValuesPerFilter', this.#limits.maxDistinctValues, 'distinct values');
  }
}

/** One variant of a filter object (`{Sender: "0x.."}`); anything else is -32602. */
export function variantOf(filter: unknown): [string, unknown] {
  const entries = filter && typeof filter === 'object' && !Array.isArray(filter) ? Object.entries(filter) : [];
  if (entries.length !== 1) throw invalidFilter('a filter has exactly one variant');
  return entries[0] as [string, unknown];
}
