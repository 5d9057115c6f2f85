import { describe, expect, it } from 'vitest';
import { readApiKey } from './credentials.js';

describe('readApiKey (spec: Authentication 1-2)', () => {
  it('reads x-api-key first, then Authorization: Bearer, then the api_key query parameter', () => {
    expect(readApiKey({ xApiKey: 'a', authorization: 'Bearer b', queryApiKey: 'c' })).toBe('a');
    expect(readApiKey({ authorization: 'Bearer b', queryApiKey: 'c' })).toBe('b');
    expect(readApiKey({ queryApiKey: 'c' })).toBe('c');
  });

  it('trims, takes the first of repeated values, and accepts any case of Bearer', () => {
    expect(readApiKey({ xApiKey: '  a  ' })).toBe('a');
    expect(readApiKey({ xApiKey: ['a', 'b'] })).toBe('a');
    expect(readApiKey({ queryApiKey: ['c', 'd'] })).toBe('c');
    expect(readApiKey({ authorization: 'bearer   b' })).toBe('b');
    expect(readApiKey({ authorization: 'BEARER b' })).toBe('b');
  });

  it("repeated Authorization headers: the first, whether kept alone (Node) or joined with a comma (Envoy's ext_authz)", () => {
    expect(readApiKey({ authorization: 'Bearer a' })).toBe('a');
    expect(readApiKey({ authorization: 'Bearer a,Bearer b' })).toBe('a');
    expect(readApiKey({ authorization: 'Bearer a, Basic Zm9vOmJhcg==' })).toBe('a');
    expect(readApiKey({ authorization: 'Basic Zm9vOmJhcg==,Bearer b' })).toBeUndefined();
  });

  it('takes whatever follows Bearer as the key sent, so a malformed one is refused as invalid, not as missing', () => {
    expect(readApiKey({ authorization: 'Bearer a b' })).toBe('a b');
  });

  it.each([
    [{}],
    [{ xApiKey: '' }],
    [{ xApiKey: '   ' }],
    [{ authorization: 'Basic Zm9vOmJhcg==' }],
    [{ authorization: 'Bearer' }],
    [{ authorization: 'Token a' }],
    [{ queryApiKey: '' }],
    [{ queryApiKey: 42 }],
    [{ queryApiKey: { nested: 'x' } }],
  ])('%j has no key', (sources) => {
    expect(readApiKey(sources)).toBeUndefined();
  });

  it('an empty x-api-key falls through to the other sources', () => {
    expect(readApiKey({ xApiKey: '', authorization: 'Bearer b' })).toBe('b');
  });
});
