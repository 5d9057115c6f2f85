import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/index.js';
import { checkQuery, DEFAULT_QUERY_LIMITS, type QueryLimits } from './query-guard.js';

const limits: QueryLimits = { maxQueryBytes: 2_000, maxDepth: 4, maxAliases: 2, maxComplexity: 12 };

function refusal(query: string, with_: QueryLimits = limits): { code: string; message: string } {
  try {
    checkQuery(query, with_);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the query passed');
}

describe('GraphQL guard rails', () => {
  it('measures a query that fits', () => {
    expect(checkQuery('query Q { a { b { c } } x: d }', limits)).toEqual({ depth: 3, aliases: 1, complexity: 4, introspection: false, document: expect.objectContaining({ kind: 'Document' }) });
  });

  it('refuses query text over the byte limit, counting UTF-8 bytes', () => {
    expect(refusal(`{ a } # ${'é'.repeat(1_000)}`)).toEqual({ code: 'GRAPHQL_QUERY_TOO_LARGE', message: 'The query is 2008 bytes; at most 2000 are accepted.' });
  });

  it('refuses a query that does not parse, with the parser\'s message', () => {
    expect(refusal('{ a { b }')).toEqual({ code: 'GRAPHQL_PARSE_FAILED', message: 'Syntax Error: Expected Name, found <EOF>.' });
  });

  it('counts depth through fragments and inline fragments', () => {
    expect(refusal('{ a { ...F } } fragment F on T { b { ... on U { c { d { e } } } } }')).toEqual({ code: 'GRAPHQL_QUERY_TOO_DEEP', message: 'The query nests deeper than 4 levels.' });
    expect(checkQuery('{ a { ...F } } fragment F on T { b { ... on U { c } } }', limits).depth).toBe(3);
  });

  it('refuses too many aliases, wherever they are', () => {
    expect(refusal('{ x: a y: a ...F } fragment F on Query { z: a }')).toEqual({ code: 'GRAPHQL_TOO_MANY_ALIASES', message: 'The query has more than 2 aliases (fragments counted where spread).' });
  });

  it('counts aliases over the expanded selection: a fragment spread N times counts N times', () => {
    const spread = (times: number) => `{ ${Array.from({ length: times }, (_, i) => `f${i}: a { ...F }`).join(' ')} } fragment F on T { x: b y: c }`;
    const wide = { ...limits, maxAliases: 50, maxComplexity: 1_000, maxDepth: 5 };
    // 16 spreads: 16 aliased roots + 2 × 16 aliases inside = 48; 17 spreads = 51.
    expect(checkQuery(spread(16), wide).aliases).toBe(48);
    expect(refusal(spread(17), wide)).toEqual({ code: 'GRAPHQL_TOO_MANY_ALIASES', message: 'The query has more than 50 aliases (fragments counted where spread).' });
    // At the number exactly: 50 reached through one fragment of 25 spread twice.
    const fifty = `{ a { ...G } b { ...G } } fragment G on T { ${Array.from({ length: 25 }, (_, i) => `g${i}: x`).join(' ')} }`;
    expect(checkQuery(fifty, wide).aliases).toBe(50);
    const fiftyOne = `{ a { ...G } b { ...G } c: d } fragment G on T { ${Array.from({ length: 25 }, (_, i) => `g${i}: x`).join(' ')} }`;
    expect(refusal(fiftyOne, wide).code).toBe('GRAPHQL_TOO_MANY_ALIASES');
  });

  it('tells an introspection-only query from one that reads data', () => {
    expect(checkQuery('query IntrospectionQuery { __schema { queryType { name } } }', limits).introspection).toBe(true);
    expect(checkQuery('{ __type(name: "Query") { name } __typename }', limits).introspection).toBe(true);
    expect(checkQuery('{ __schema { queryType { name } } chainIdentifier }', limits).introspection).toBe(false);
    expect(checkQuery('mutation { __typename }', limits).introspection).toBe(false);
  });

  it.each([
    ['a missing fragment', 'fragment F40 on Query { ...Missing }'],
    ['a cycle back to the first', 'fragment F40 on Query { ...F0 }'],
  ])('refuses a fragment bomb whose last spread selects no field (%s), in bounded work', (_what, last) => {
    // 2^40 spreads to walk if only fields counted: the test would never end.
    const bomb = '{ ...F0 } ' + Array.from({ length: 40 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ') + ` ${last}`;
    expect(refusal(bomb, { ...DEFAULT_QUERY_LIMITS })).toEqual({ code: 'GRAPHQL_QUERY_TOO_COMPLEX', message: "The query's fragments expand to more than 4000 selections." });
  });

  it('refuses a fragment bomb by complexity, in bounded work', () => {
    const bomb = '{ ...F0 } ' + Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ') + ' fragment F30 on Query { a }';
    expect(refusal(bomb, { ...DEFAULT_QUERY_LIMITS })).toEqual({ code: 'GRAPHQL_QUERY_TOO_COMPLEX', message: 'The query selects more than 1000 fields (fragments counted where spread).' });
  });

  it('does not loop on a fragment cycle (the upstream rejects it)', () => {
    expect(checkQuery('{ ...A } fragment A on Query { a ...B } fragment B on Query { b ...A }', limits)).toEqual({ depth: 1, aliases: 0, complexity: 2, introspection: false, document: expect.objectContaining({ kind: 'Document' }) });
  });
});
