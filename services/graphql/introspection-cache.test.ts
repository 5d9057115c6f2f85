import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import { IntrospectionCache } from './introspection-cache.js';
import { INTROSPECTION_CACHE_BOUNDS } from './index.js';

const answer = (data: unknown) => ({ status: 200, contentType: 'application/json', body: Buffer.from(JSON.stringify(data)) });
const key = (query: string, extra: { variables?: unknown; operationName?: string } = {}) => IntrospectionCache.key('mainnet', { document: parse(query), ...extra });

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
    expect(IntrospectionCache.key('testnet', { document: parse('query IntrospectionQuery { __schema { queryType { name } } }') })).not.toBe(plain);
  });

  it('keeps 16 entries, the least recently used leaving first: a used entry outlives 16 new ones', () => {
    const cache = new IntrospectionCache(INTROSPECTION_CACHE_BOUNDS, new ManualClock());
    const useful = key('query IntrospectionQuery { __schema { queryType { name } } }');
    cache.set(useful, answer({ data: { useful: true } }), 'org_a');
    const others = Array.from({ length: 16 }, (_, i) => key(`{ __type(name: "T${i}") { name } }`));
    others.slice(0, 15).forEach((other) => cache.set(other, answer({ data: {} }), 'org_a'));
    expect(cache.size).toBe(16);
    expect(cache.get(useful)).toBeDefined();
    cache.set(others[15]!, answer({ data: {} }), 'org_a');
    expect(cache.size).toBe(16);
    expect(cache.get(useful)).toEqual(answer({ data: { useful: true } }));
    expect(cache.get(others[0]!)).toBeUndefined();
    expect(cache.get(others[1]!)).toBeDefined();
  });

  it('at the bound the organization holding the most gives up its least recently used entry', () => {
    const cache = new IntrospectionCache(INTROSPECTION_CACHE_BOUNDS, new ManualClock());
    const idle = key('query Idle { __schema { queryType { name } } }');
    cache.set(idle, answer({ data: { idle: true } }), 'org_quiet');
    const churn = Array.from({ length: 16 }, (_, i) => key(`{ __type(name: "C${i}") { name } }`));
    churn.slice(0, 15).forEach((entry) => cache.set(entry, answer({ data: {} }), 'org_churn'));
    expect(cache.size).toBe(16);
    cache.set(churn[15]!, answer({ data: {} }), 'org_churn');
    expect(cache.size).toBe(16);
    expect(cache.get(idle)).toEqual(answer({ data: { idle: true } }));
    expect(cache.get(churn[0]!)).toBeUndefined();
    expect(cache.get(churn[1]!)).toBeDefined();
    // The quiet organization's new entries also come out of the larger holding, its least
    // recently used first (C1 was just read), until the two hold 8 each.
    const quiet = Array.from({ length: 7 }, (_, i) => key(`{ __type(name: "Q${i}") { name } }`));
    quiet.forEach((entry) => cache.set(entry, answer({ data: {} }), 'org_quiet'));
    expect(cache.size).toBe(16);
    expect([idle, ...quiet].every((entry) => cache.get(entry) !== undefined)).toBe(true);
    expect(churn.map((entry) => cache.get(entry) !== undefined)).toEqual([false, true, ...Array(7).fill(false), ...Array(7).fill(true)]);
  });

  it('keeps neither an answer with errors (their locations are the sent text\'s) nor a non-200 one', () => {
    const cache = new IntrospectionCache(INTROSPECTION_CACHE_BOUNDS, new ManualClock());
    cache.set(key('{ __type(name: 1) { name } }'), answer({ data: null, errors: [{ message: 'bad', locations: [{ line: 1, column: 17 }] }] }), 'org_a');
    cache.set(key('{ __typename }'), { ...answer({ data: { __typename: 'Query' } }), status: 500 }, 'org_a');
    expect(cache.size).toBe(0);
    cache.set(key('{ __typename }'), answer({ data: { __typename: 'Query' } }), 'org_a');
    expect(cache.size).toBe(1);
  });
});
