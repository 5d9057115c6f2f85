import { badUserInput } from './errors.js';
import type { PageLimits } from './pagination.js';

/**
 * The limits of Sui's GraphQL service (sui-indexer-alt-graphql's defaults), which simnet enforces
 * so that a query that works here is not rejected by a real node, and reports through
 * `serviceConfig`.
 */
export const LIMITS = {
  maxQueryDepth: 20,
  maxQueryNodes: 300,
  maxOutputNodes: 1_000_000,
  maxQueryPayloadSize: 5_000,
  maxTransactionPayloadSize: 174_763,
  defaultPageSize: 20,
  maxPageSize: 50,
  maxMultiGetSize: 200,
  maxRichQueries: 21,
  maxTypeArgumentDepth: 16,
  maxTypeArgumentWidth: 32,
  maxTypeNodes: 256,
  maxMoveValueDepth: 128,
  maxMoveValueBound: 1024 * 1024,
  maxDisplayFieldDepth: 10,
  maxDisplayFormatNodes: 32,
  maxDisplayObjectLoads: 8,
  maxDisplayOutputSize: 1024 * 1024,
  maxDisassembledModuleSize: 1024 * 1024,
  mutationTimeoutMs: 74_000,
  queryTimeoutMs: 40_000,
} as const;

/** Fields whose page sizes differ from the default, keyed `Type.field` as Sui keys them. */
const PAGE_OVERRIDES: Record<string, PageLimits> = {
  'TransactionEffects.objectChanges': { default: 1024, max: 1024 },
  'Query.packages': { default: 200, max: 200 },
  'Query.packageVersions': { default: 200, max: 200 },
};

const DEFAULT_PAGE: PageLimits = { default: LIMITS.defaultPageSize, max: LIMITS.maxPageSize };

export function pageLimits(type: string, field: string): PageLimits {
  return PAGE_OVERRIDES[`${type}.${field}`] ?? DEFAULT_PAGE;
}

export function checkMultiGetSize(count: number): void {
  if (count > LIMITS.maxMultiGetSize) {
    throw badUserInput(`Number of keys ${count} exceeds max of ${LIMITS.maxMultiGetSize}`);
  }
}
