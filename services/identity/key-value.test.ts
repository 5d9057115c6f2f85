import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKeyValue, hashKeyValue, isWellFormedKeyValue, KEY_PREFIX, keyStart } from './key-value.js';

describe('key values', () => {
  it('start with svc_pat_ and carry base58 randomness; no two alike', () => {
    const values = new Set(Array.from({ length: 200 }, generateKeyValue));
    expect(values.size).toBe(200);
    for (const value of values) {
      expect(value.startsWith(KEY_PREFIX)).toBe(true);
      expect(value).toMatch(/^svc_pat_[1-9A-HJ-NP-Za-km-z]{40,46}$/);
      expect(isWellFormedKeyValue(value)).toBe(true);
    }
  });

  it('are stored as their SHA-256 in hex', () => {
    const value = generateKeyValue();
    expect(hashKeyValue(value)).toBe(createHash('sha256').update(value).digest('hex'));
    expect(hashKeyValue(value)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('are listed by their first 12 characters (prefix + 4)', () => {
    const value = generateKeyValue();
    expect(keyStart(value)).toBe(value.slice(0, 12));
  });

  it.each([
    '',
    'svc_pat_',
    'svc_pat_short',
    `svc_pat_${'0'.repeat(44)}`,
    `svc_pat_${'O'.repeat(44)}`,
    `svc_pat_${'l'.repeat(44)}`,
    `SVC_PAT_${'1'.repeat(44)}`,
    `svc_pat_${'1'.repeat(121)}`,
    `svc_pat_${'1'.repeat(43)} `,
    `svc_pat_${'1'.repeat(43)}\u0000`,
  ])('%j is not well formed', (value) => {
    expect(isWellFormedKeyValue(value)).toBe(false);
  });
});
