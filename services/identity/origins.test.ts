import { describe, expect, it } from 'vitest';
import { isOriginAllowed, originMatches, originPatternCovers, originsCover, parseOriginPattern } from './origins.js';

describe('parseOriginPattern', () => {
  it.each([
    ['example.com', { scheme: undefined, wildcard: false, host: 'example.com', port: undefined }],
    ['*.example.com', { scheme: undefined, wildcard: true, host: 'example.com', port: undefined }],
    ['https://app.example.com:8443', { scheme: 'https', wildcard: false, host: 'app.example.com', port: '8443' }],
    ['  HTTP://Example.COM  ', { scheme: 'http', wildcard: false, host: 'example.com', port: undefined }],
    ['localhost:3000', { scheme: undefined, wildcard: false, host: 'localhost', port: '3000' }],
    ['http://[::1]:8080', { scheme: 'http', wildcard: false, host: '[::1]', port: '8080' }],
  ])('%j parses', (entry, expected) => {
    expect(parseOriginPattern(entry)).toEqual(expected);
  });

  it.each(['', '*', '*.', 'http://', 'example.com/', 'example.com/path', 'a b.com', 'example.com:65536', 'example.com:', '*.*.example.com', 'ex*ample.com', 'https://user@example.com', '*.com', 'https://*.localhost:3000', '*.[::1]'])(
    '%j is refused',
    (entry) => {
      expect(parseOriginPattern(entry)).toBeUndefined();
    },
  );
});

describe('originMatches and isOriginAllowed (spec: Authentication 6)', () => {
  const matches = (entry: string, origin: string) => originMatches(parseOriginPattern(entry)!, origin);

  it('a bare host matches any scheme and port, that host only', () => {
    expect(matches('example.com', 'https://example.com')).toBe(true);
    expect(matches('example.com', 'http://example.com:1234')).toBe(true);
    expect(matches('example.com', 'https://a.example.com')).toBe(false);
    expect(matches('example.com', 'https://example.com.evil.io')).toBe(false);
  });

  it('a host with a port but no scheme: any scheme, that port only', () => {
    expect(matches('localhost:3000', 'http://localhost:3000')).toBe(true);
    expect(matches('localhost:3000', 'https://localhost:3000')).toBe(true);
    expect(matches('localhost:3000', 'http://localhost:4000')).toBe(false);
    expect(matches('localhost:3000', 'http://localhost')).toBe(false);
    expect(matches('*.example.com:8443', 'https://a.example.com:8443')).toBe(true);
    expect(matches('*.example.com:8443', 'https://a.example.com')).toBe(false);
  });

  it('a wildcard matches subdomains at any depth, not the apex or look-alikes', () => {
    expect(matches('*.example.com', 'https://a.example.com')).toBe(true);
    expect(matches('*.example.com', 'https://a.b.example.com')).toBe(true);
    expect(matches('*.example.com', 'https://example.com')).toBe(false);
    expect(matches('*.example.com', 'https://badexample.com')).toBe(false);
    expect(matches('*.example.com', 'https://.example.com')).toBe(false);
  });

  it('a full origin matches exactly; no port means the scheme’s default', () => {
    expect(matches('https://app.example.com:8443', 'https://app.example.com:8443')).toBe(true);
    expect(matches('https://app.example.com:8443', 'https://app.example.com')).toBe(false);
    expect(matches('https://app.example.com', 'https://app.example.com:443')).toBe(true);
    expect(matches('https://app.example.com', 'http://app.example.com')).toBe(false);
    expect(matches('http://app.example.com', 'http://app.example.com:80')).toBe(true);
    expect(matches('http://app.example.com', 'http://app.example.com:8080')).toBe(false);
  });

  it('an empty list allows everything; a non-empty list needs a matching, parseable Origin', () => {
    expect(isOriginAllowed([], undefined)).toBe(true);
    expect(isOriginAllowed([], 'garbage')).toBe(true);
    expect(isOriginAllowed(['example.com'], undefined)).toBe(false);
    expect(isOriginAllowed(['example.com'], '')).toBe(false);
    expect(isOriginAllowed(['example.com'], 'null')).toBe(false);
    expect(isOriginAllowed(['example.com'], 'example.com')).toBe(false);
    expect(isOriginAllowed(['not valid entry', 'example.com'], 'https://example.com')).toBe(true);
    expect(isOriginAllowed(['a.io', 'b.io'], 'https://c.io')).toBe(false);
  });
});

describe('originPatternCovers and originsCover (a key passes on only origins it is held to)', () => {
  const covers = (outer: string, inner: string) => originPatternCovers(parseOriginPattern(outer)!, parseOriginPattern(inner)!);

  it.each([
    ['example.com', 'example.com', true],
    ['example.com', 'https://example.com:8443', true],
    ['example.com', 'a.example.com', false],
    ['example.com', '*.example.com', false],
    ['*.example.com', 'a.example.com', true],
    ['*.example.com', 'https://a.b.example.com:9', true],
    ['*.example.com', '*.example.com', true],
    ['*.example.com', '*.a.example.com', true],
    ['*.example.com', 'example.com', false],
    ['*.a.example.com', '*.example.com', false],
    ['example.com:3000', 'https://example.com:3000', true],
    ['example.com:3000', 'example.com', false],
    ['example.com:443', 'https://example.com', true],
    ['example.com:443', 'http://example.com', false],
    ['https://example.com', 'https://example.com:443', true],
    ['https://example.com', 'https://example.com:8443', false],
    ['https://example.com', 'example.com:443', false],
    ['https://example.com', 'http://example.com', false],
    ['http://localhost:3000', 'localhost:3000', false],
  ])('%j covers %j: %s', (outer, inner, expected) => {
    expect(covers(outer, inner)).toBe(expected);
  });

  it('agrees with originMatches: whatever a covered pattern admits, the covering one admits too', () => {
    const entries = ['example.com', '*.example.com', '*.a.example.com', 'a.example.com', 'example.com:3000', 'example.com:443', 'https://example.com', 'http://example.com:3000', 'https://a.example.com:443', '*.example.com:80', 'ws://example.com'];
    const origins = ['https://example.com', 'http://example.com', 'http://example.com:3000', 'https://example.com:3000', 'https://a.example.com', 'http://a.example.com:80', 'https://b.a.example.com', 'ws://example.com', 'wss://example.com:443'];
    for (const outer of entries) {
      for (const inner of entries) {
        if (!covers(outer, inner)) continue;
        for (const origin of origins) {
          if (originMatches(parseOriginPattern(inner)!, origin)) expect(originMatches(parseOriginPattern(outer)!, origin), `${outer} ⊇ ${inner} at ${origin}`).toBe(true);
        }
      }
    }
  });

  it('lists: an empty outer list covers all; an empty inner list (any origin) is covered only by one; entries that admit nothing are covered', () => {
    expect(originsCover([], [])).toBe(true);
    expect(originsCover([], ['a.io'])).toBe(true);
    expect(originsCover(['a.io'], [])).toBe(false);
    expect(originsCover(['a.io', '*.b.io'], ['https://a.io', 'c.b.io'])).toBe(true);
    expect(originsCover(['a.io', '*.b.io'], ['https://a.io', 'b.io'])).toBe(false);
    expect(originsCover(['a.io'], ['not an origin'])).toBe(true);
    expect(originsCover(['not an origin'], ['a.io'])).toBe(false);
  });
});
