import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import { IntrospectionCache } from './introspection-cache.js';
import { INTROSPECTION_CACHE_BOUNDS } from './index.js';

const answer = (data: unknown) => ({ status: 200, contentType: 'application/json', body: Buffer.from(JSON.stringify(data)) });
const key = (query: string, extra: { variables?: unknown; operationName?: string } = {}) => IntrospectionCache.key('mainnet', { query, ...extra });

describe('IntrospectionCache', () => {
  it('keys whitespace, comma and comment variants of one query alike, and nothing else', () => {
    const plain = key('query IntrospectionQuery { __schema { queryType { name } } }');
    expect(key('query IntrospectionQuery{__schema{queryType{name}}}')).toBe(plain);
    expect(key('# asked by the playground\nquery IntrospectionQuery {\n  __schema {\n    queryType { name, }\n  }\n}\n')).toBe(plain);
    expect(key('query IntrospectionQuery { __schema { mutationType { name } } }')).not.toBe(plain);
    expect(key('query IntrospectionQuery { s: __schema { queryType { name } } }')).not.toBe(plain);
    expect(key('query IntrospectionQuery { __schema { queryType { name } } }', { operationName: 'IntrospectionQuery' })).not.toBe(plain);
    expect(key('{ __type(name: "Query ") { name } }')).not.toBe(key('{ __type(name: "Query") { name } }'));
    expect(key('query ($n: String!) { __type(name: $n) { name } }', { variables: { n: 'A' } }))
      .not.toBe(key('query ($n: String!) { __type(name: $n) { name } }', { variables: { n: 'B' } }));
    expect(IntrospectionCache.key('testnet', { query: 'query IntrospectionQuery { __schema { queryType { name } } }' })).not.toBe(plain);
  });

  it('keeps 16 entries, the least recently used leaving first: a used entry outlives 16 new ones', () => {
    const cache = new IntrospectionCache(INTROSPECTION_CACHE_BOUNDS, new ManualClock());
    const useful = key('query IntrospectionQuery { __schema { queryType { name } } }');
    cache.set(useful, answer({ data: { useful: true } }));
    const others = Array.from({ length: 16 }, (_, i) => key(`{ __type(name: "T${i}") { name } }`));
    others.slice(0, 15).forEach((other) => cache.set(other, answer({ data: {} })));
    expect(cache.size).toBe(16);
    expect(cache.get(useful)).toBeDefined();
    cache.set(others[15]!, answer({ data: {} }));
    expect(cache.size).toBe(16);
    expect(cache.get(useful)).toEqual(answer({ data: { useful: true } }));
    expect(cache.get(others[0]!)).toBeUndefined();
    expect(cache.get(others[1]!)).toBeDefined();
  });

  it('keeps neither an answer with errors (their locations are the sent text\'s) nor a non-200 one', () => {
    const cache = new IntrospectionCache(INTROSPECTION_CACHE_BOUNDS, new ManualClock());
    cache.set(key('{ __type(name: 1) { name } }'), answer({ data: null, errors: [{ message: 'bad', locations: [{ line: 1, column: 17 }] }] }));
    cache.set(key('{ __typename }'), { ...answer({ data: { __typename: 'Query' } }), status: 500 });
    expect(cache.size).toBe(0);
    cache.set(key('{ __typename }'), answer({ data: { __typename: 'Query' } }));
    expect(cache.size).toBe(1);
  });
});
