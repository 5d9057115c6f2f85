import { Kind } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode, SelectionSetNode } from 'graphql';
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

/**
 * Checks the operation's depth and node count (every field, fragments expanded where spread) the
 * way Sui does before running it. Returns a message when a limit is exceeded.
 */
export function checkQueryShape(document: DocumentNode, operation: OperationDefinitionNode): string | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  let nodes = 0;
  let maxDepth = 0;
  const visit = (set: SelectionSetNode, depth: number, seen: ReadonlySet<string>): string | null => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        nodes += 1;
        maxDepth = Math.max(maxDepth, depth);
        if (nodes > LIMITS.maxQueryNodes) {
          return `Query has too many nodes. The maximum allowed is ${LIMITS.maxQueryNodes}`;
        }
        if (maxDepth > LIMITS.maxQueryDepth) {
          return `Query nesting is over ${LIMITS.maxQueryDepth}`;
        }
        if (selection.selectionSet) {
          const problem = visit(selection.selectionSet, depth + 1, seen);
          if (problem) return problem;
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const problem = visit(selection.selectionSet, depth, seen);
        if (problem) return problem;
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name)) continue;
        const problem = visit(fragment.selectionSet, depth, new Set([...seen, name]));
        if (problem) return problem;
      }
    }
    return null;
  };
  return visit(operation.selectionSet, 1, new Set());
}
