import { describe, expect, it } from 'vitest';
import type { ApiError } from './errors.js';
import { CursorCodec } from './cursor.js';

describe('CursorCodec', () => {
  let now = 1_700_000_000_000;
  const codec = new CursorCodec({ secret: 'a-test-secret-of-32-characters!!', maxAgeSeconds: 3600, now: () => now });
  const scope = { kind: 'account-transactions', network: 'testnet', query: '0xabc|sent' };

  const codeOf = (fn: () => unknown) => { try { fn(); return 'none'; } catch (e) { return (e as ApiError).code; } };

  it('round-trips the upstream position', () => {
    expect(codec.decode(scope, codec.encode(scope, 'upstream-cursor-1'))).toBe('upstream-cursor-1');
  });

  it('rejects forged, edited and garbage cursors', () => {
    const cursor = codec.encode(scope, 'p');
    const [payload] = cursor.split('.');
    const edited = Buffer.from(JSON.stringify({ k: scope.kind, n: 'testnet', q: scope.query, p: 'other', t: 1 })).toString('base64url');
    expect(codeOf(() => codec.decode(scope, `${edited}.${cursor.split('.')[1]}`))).toBe('INVALID_CURSOR');
    expect(codeOf(() => codec.decode(scope, `${payload}.AAAA`))).toBe('INVALID_CURSOR');
    expect(codeOf(() => codec.decode(scope, 'not-a-cursor'))).toBe('INVALID_CURSOR');
    const other = new CursorCodec({ secret: 'another-secret-of-32-characters!', maxAgeSeconds: 3600, now: () => now });
    expect(codeOf(() => codec.decode(scope, other.encode(scope, 'p')))).toBe('INVALID_CURSOR');
  });

  it('rejects a cursor from another query, endpoint or network', () => {
    const cursor = codec.encode(scope, 'p');
    expect(codeOf(() => codec.decode({ ...scope, query: '0xdef|sent' }, cursor))).toBe('INVALID_CURSOR');
    expect(codeOf(() => codec.decode({ ...scope, kind: 'account-objects' }, cursor))).toBe('INVALID_CURSOR');
    expect(codeOf(() => codec.decode({ ...scope, network: 'mainnet' }, cursor))).toBe('INVALID_CURSOR');
  });

  it('rejects stale cursors', () => {
    const cursor = codec.encode(scope, 'p');
    now += 3601_000;
    expect(codeOf(() => codec.decode(scope, cursor))).toBe('INVALID_CURSOR');
  });
});
