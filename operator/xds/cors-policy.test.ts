import { describe, expect, it } from 'vitest';
import { isOriginAllowed } from '../../services/identity/index.js';
import { corsPolicy, originMatcher } from './cors-policy.js';

const ENTRIES = ['example.com', 'example.com:3000', 'example.com:443', '*.example.org', 'https://app.example.net', 'http://local.test:8080', '[::1]'];
const ORIGINS = [
  'https://example.com',
  'http://example.com:3000',
  'https://example.com:3000',
  'https://evil-example.com',
  'https://example.com.evil.test',
  'https://a.example.org',
  'https://a.b.example.org:8443',
  'https://example.org',
  'https://app.example.net',
  'https://app.example.net:443',
  'http://app.example.net',
  'https://app.example.net:8443',
  'http://local.test:8080',
  'http://local.test',
  'http://[::1]:5173',
];

describe("Envoy's CORS origin matchers accept exactly what the authenticator accepts", () => {
  for (const entry of ENTRIES) {
    it(entry, () => {
      const regex = new RegExp(originMatcher(entry)!.safe_regex.regex);
      for (const origin of ORIGINS) expect([origin, regex.test(origin)]).toEqual([origin, isOriginAllowed([entry], origin)]);
    });
  }

  it('matches any origin for *, and drops entries the spec refuses', () => {
    expect(originMatcher('*')).toEqual({ safe_regex: { regex: '.*' } });
    expect(originMatcher('*.com')).toBeUndefined();
    expect(corsPolicy(['*.com', 'example.com'], false).allow_origin_string_match).toHaveLength(1);
  });

  it('never allows credentials and exposes the limit headers, plus the gRPC status for gRPC-Web', () => {
    expect(corsPolicy(['*'], false)).toMatchObject({ allow_credentials: { value: false }, max_age: '600' });
    expect(String(corsPolicy(['*'], false).expose_headers)).toContain('X-RateLimit-Remaining');
    expect(String(corsPolicy(['*'], true).expose_headers)).toContain('grpc-status');
  });
});
