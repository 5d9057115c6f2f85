import { Kind, parse, GraphQLError, type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { ApiError } from '../core/index.js';

/** The guard rails a query passes before it is forwarded (SUIGW_GRAPHQL_*). */
export interface QueryLimits {
  /** Bytes of the query text (UTF-8). */
  maxQueryBytes: number;
  /** Nesting of selection sets, fragments expanded where spread. */
  maxDepth: number;
  /** Aliased fields in the document. */
  maxAliases: number;
  /** Fields selected, each counted once per time it is reached (fragments expanded where spread). */
  maxComplexity: number;
}

/** Defaults sit at or above the limits of Sui's own GraphQL service, so a query it serves passes. */
export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  maxQueryBytes: 16 * 1024,
  maxDepth: 20,
  maxAliases: 50,
  maxComplexity: 1_000,
};

/** What the guard measured, for the caller who wants to see it. */
export interface QueryShape {
  depth: number;
  aliases: number;
  complexity: number;
}

/**
 * Parses a query and checks it against the limits, before any upstream call: a query that is
 * too large, does not parse, nests too deep, carries too many aliases or selects too many fields
 * is the caller's 400 with its own code. Counting stops at the limit, so a fragment bomb (each
 * fragment spreading the next twice) costs at most `maxComplexity` steps, not 2^n.
 */
export function checkQuery(query: string, limits: QueryLimits): QueryShape {
  const bytes = Buffer.byteLength(query, 'utf8');
  if (bytes > limits.maxQueryBytes) {
    throw new ApiError('GRAPHQL_QUERY_TOO_LARGE', { message: `The query is ${bytes} bytes; at most ${limits.maxQueryBytes} are accepted.` });
  }
  let document: DocumentNode;
  try {
    // graphql-js's own token limit keeps a pathological text from costing more than the byte limit allows.
    document = parse(query, { maxTokens: limits.maxQueryBytes });
  } catch (error) {
    const message = error instanceof GraphQLError ? error.message : String(error);
    throw new ApiError('GRAPHQL_PARSE_FAILED', { message });
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const aliases = countAliases(document.definitions);
  if (aliases > limits.maxAliases) {
    throw new ApiError('GRAPHQL_TOO_MANY_ALIASES', { message: `The query has ${aliases} aliases; at most ${limits.maxAliases} are accepted.` });
  }
  const walk = new ShapeWalk(fragments, limits);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) walk.selections(definition.selectionSet, 1, new Set());
  }
  return { depth: walk.depth, aliases, complexity: walk.complexity };
}

function countAliases(definitions: readonly DefinitionNode[]): number {
  let count = 0;
  const visit = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD && selection.alias) count += 1;
      if (selection.kind !== Kind.FRAGMENT_SPREAD) visit(selection.selectionSet);
    }
  };
  for (const definition of definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION) visit(definition.selectionSet);
  }
  return count;
}

class ShapeWalk {
  depth = 0;
  complexity = 0;
  readonly #fragments: Map<string, FragmentDefinitionNode>;
  readonly #limits: QueryLimits;

  constructor(fragments: Map<string, FragmentDefinitionNode>, limits: QueryLimits) {
    this.#fragments = fragments;
    this.#limits = limits;
  }

  /** `spreading` holds the fragments on the current path: a cycle is not followed (the upstream rejects it). */
  selections(set: SelectionSetNode, level: number, spreading: Set<string>): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        this.complexity += 1;
        if (this.complexity > this.#limits.maxComplexity) {
          throw new ApiError('GRAPHQL_QUERY_TOO_COMPLEX', { message: `The query selects more than ${this.#limits.maxComplexity} fields (fragments counted where spread).` });
        }
        this.depth = Math.max(this.depth, level);
        if (this.depth > this.#limits.maxDepth) {
          throw new ApiError('GRAPHQL_QUERY_TOO_DEEP', { message: `The query nests deeper than ${this.#limits.maxDepth} levels.` });
        }
        if (selection.selectionSet) this.selections(selection.selectionSet, level + 1, spreading);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.selections(selection.selectionSet, level, spreading);
      } else {
        const name = selection.name.value;
        const fragment = this.#fragments.get(name);
        if (!fragment || spreading.has(name)) continue;
        spreading.add(name);
        this.selections(fragment.selectionSet, level, spreading);
        spreading.delete(name);
      }
    }
  }
}
