import { describe, expect, it } from 'vitest';
import { checkQuery, DEFAULT_QUERY_LIMITS } from './query-guard.js';

/** Each shipped limit at its number passes and one past it is refused (a one-character change fails here). */
describe('GraphQL guard rails at the shipped limits', () => {
  const nested = (levels: number) => `${'{ a '.repeat(levels)}${'}'.repeat(levels)}`;
  const aliased = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `x${i}: a`).join(' ')} }`;

  it(`depth ${DEFAULT_QUERY_LIMITS.maxDepth} passes, ${DEFAULT_QUERY_LIMITS.maxDepth + 1} is GRAPHQL_QUERY_TOO_DEEP`, () => {
    expect(DEFAULT_QUERY_LIMITS.maxDepth).toBe(20);
    expect(checkQuery(nested(20), DEFAULT_QUERY_LIMITS).depth).toBe(20);
    expect(() => checkQuery(nested(21), DEFAULT_QUERY_LIMITS)).toThrow(expect.objectContaining({ code: 'GRAPHQL_QUERY_TOO_DEEP', message: 'The query nests deeper than 20 levels.' }));
  });

  it(`${DEFAULT_QUERY_LIMITS.maxAliases} aliases pass, one more is GRAPHQL_TOO_MANY_ALIASES`, () => {
    const max = DEFAULT_QUERY_LIMITS.maxAliases;
    expect(checkQuery(aliased(max), DEFAULT_QUERY_LIMITS).aliases).toBe(max);
    expect(() => checkQuery(aliased(max + 1), DEFAULT_QUERY_LIMITS)).toThrow(expect.objectContaining({ code: 'GRAPHQL_TOO_MANY_ALIASES' }));
  });
});
