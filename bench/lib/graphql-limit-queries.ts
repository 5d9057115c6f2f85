import { checkQuery, DEFAULT_QUERY_LIMITS, type QueryLimits } from '../../services/graphql/index.js';

/**
 * Queries for the GraphQL attacker (bench/lib/noisy-graphql.ts), valid against Sui's schema, built
 * to sit exactly at the gateway's guard rails (the shipped SUIGW_GRAPHQL_* defaults) or one past:
 * - `a0` nests `checkpoint { query { checkpoint … } } }` down to the depth limit;
 * - `a1`…`a{maxAliases-1}` are aliased `checkpoint`s, which with `a0` make the alias limit;
 * - the rest of the complexity budget is `digest` fields spread over them, so the field count is
 *   the complexity limit exactly.
 * A trailing comment (`# n`) makes each text, and so its persisted-query hash, new.
 * `overLimit` adds one alias: refused with 400 GRAPHQL_TOO_MANY_ALIASES before any upstream call.
 */
export function limitQuery(n: number, options: { overLimit?: boolean; limits?: QueryLimits } = {}): string {
  const limits = options.limits ?? DEFAULT_QUERY_LIMITS;
  // Depth d: fields at levels 1..d; odd levels are `checkpoint`, even `query`, the last is the leaf `digest`.
  let deep = 'digest';
  for (let level = limits.maxDepth - 1; level >= 2; level -= 1) deep = `${level % 2 === 1 ? 'checkpoint' : 'query'} { ${deep} }`;
  const aliases = limits.maxAliases + (options.overLimit ? 1 : 0);
  const inner: number[] = Array.from({ length: aliases - 1 }, () => 0);
  // Fields left after the deep chain (maxDepth fields) and one field per other alias.
  let left = limits.maxComplexity - limits.maxDepth - (aliases - 1);
  for (let i = 0; left > 0; i = (i + 1) % inner.length, left -= 1) inner[i]! += 1;
  const rest = inner.map((count, i) => `a${i + 1}: checkpoint { ${Array.from({ length: Math.max(1, count) }, () => 'digest').join(' ')} }`);
  return `{ a0: checkpoint { ${deep} } ${rest.join(' ')} }\n# ${n}`;
}

/** Throws unless `limitQuery` meets every limit exactly (the at-limit query) at the shipped defaults. */
export function assertAtLimits(limits: QueryLimits = DEFAULT_QUERY_LIMITS): { depth: number; aliases: number; complexity: number; bytes: number } {
  const query = limitQuery(0, { limits });
  const shape = checkQuery(query, limits);
  if (shape.depth !== limits.maxDepth || shape.aliases !== limits.maxAliases || shape.complexity !== limits.maxComplexity) {
    const measured = { depth: shape.depth, aliases: shape.aliases, complexity: shape.complexity };
    throw new Error(`the at-limit query measures ${JSON.stringify(measured)}, not the limits ${JSON.stringify(limits)}`);
  }
  return { depth: shape.depth, aliases: shape.aliases, complexity: shape.complexity, bytes: Buffer.byteLength(query) };
}
