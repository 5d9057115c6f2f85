import { Kind, OperationTypeNode, parse, GraphQLError, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { ApiError } from '../core/index.js';

/** The guard rails a query passes before it is forwarded (SUIGW_GRAPHQL_*). */
export interface QueryLimits {
  /** Bytes of the query text (UTF-8). */
  maxQueryBytes: number;
  /** Nesting of selection sets, fragments expanded where spread. */
  maxDepth: number;
  /** Aliased fields, each counted once per time it is reached (fragments expanded where spread). */
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
  /** Only `__schema`, `__type` and `__typename` at the top of queries: the same answer for every caller. */
  introspection: boolean;
  /** The parsed query, for whoever needs it next (the introspection cache's key): parsed once. */
  document: DocumentNode;
}

const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/**
 * Parses a query and checks it against the limits, before any upstream call: a query that is
 * too large, does not parse, nests too deep, carries too many aliases or selects too many fields
 * is the caller's 400 with its own code. Aliases, fields and depth are counted over the selection
 * as the upstream will run it, fragments expanded where spread. Counting stops at the limit, so a
 * fragment bomb (each fragment spreading the next twice) costs at most `maxComplexity` fields and
 * `STEPS_PER_FIELD` times that in visited selections, not 2^n, even when its spreads select nothing.
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
  const walk = new ShapeWalk(fragments, limits);
  let introspection = true;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (definition.operation !== OperationTypeNode.QUERY) introspection = false;
    walk.selections(definition.selectionSet, 1, new Set());
  }
  introspection &&= walk.topLevelFields.size > 0 && [...walk.topLevelFields].every((name) => INTROSPECTION_FIELDS.has(name));
  return { depth: walk.depth, aliases: walk.aliases, complexity: walk.complexity, introspection, document };
}

/**
 * Every selection the walk visits (fields, spreads, inline fragments) costs a step, and the walk
 * stops after this many times `maxComplexity`: spreads of a missing or cyclic fragment select no
 * field, so counting fields alone let a chain of them be walked 2^n times (26 levels, 1.2 KB,
 * held the event loop for 6 s).
 */
const STEPS_PER_FIELD = 4;

class ShapeWalk {
  depth = 0;
  aliases = 0;
  complexity = 0;
  #steps = 0;
  readonly topLevelFields = new Set<string>();
  readonly #fragments: Map<string, FragmentDefinitionNode>;
  readonly #limits: QueryLimits;

  constructor(fragments: Map<string, FragmentDefinitionNode>, limits: QueryLimits) {
    this.#fragments = fragments;
    this.#limits = limits;
  }

  /** `spreading` holds the fragments on the current path: a cycle is not followed (the upstream rejects it). */
  selections(set: SelectionSetNode, level: number, spreading: Set<string>): void {
    for (const selection of set.selections) {
      this.#steps += 1;
      if (this.#steps > this.#limits.maxComplexity * STEPS_PER_FIELD) {
        throw new ApiError('GRAPHQL_QUERY_TOO_COMPLEX', { message: `The query's fragments expand to more than ${this.#limits.maxComplexity * STEPS_PER_FIELD} selections.` });
      }
      if (selection.kind === Kind.FIELD) {
        this.complexity += 1;
        if (level === 1) this.topLevelFields.add(selection.name.value);
        if (this.complexity > this.#limits.maxComplexity) {
          throw new ApiError('GRAPHQL_QUERY_TOO_COMPLEX', { message: `The query selects more than ${this.#limits.maxComplexity} fields (fragments counted where spread).` });
        }
        if (selection.alias) {
          this.aliases += 1;
          // Counted as reached, not as written: a fragment of 10 aliases spread 10 times is 100 upstream fields.
          if (this.aliases > this.#limits.maxAliases) {
            throw new ApiError('GRAPHQL_TOO_MANY_ALIASES', { message: `The query has more than ${this.#limits.maxAliases} aliases (fragments counted where spread).` });
          }
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
