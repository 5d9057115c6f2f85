import { describe, expect, it } from 'vitest';
import { deriveSubkey } from './secrets.js';

describe('per-purpose subkeys of the server secret', () => {
  const secret = 'an-operator-chosen-secret-of-32-chars!';

  it('are 32 bytes, the same on every replica that shares the secret', () => {
    const first = deriveSubkey(secret, 'cursors');
    expect(first).toHaveLength(32);
    expect(deriveSubkey(secret, 'cursors').equals(first)).toBe(true);
  });

  it('differ by purpose and from the secret itself, and change with the secret', () => {
    const keys = (['cursors', 'identity-headers', 'wallet-challenges'] as const).map((purpose) => deriveSubkey(secret, purpose).toString('hex'));
    expect(new Set(keys).size).toBe(3);
    expect(keys).not.toContain(Buffer.from(secret).subarray(0, 32).toString('hex'));
    expect(deriveSubkey(`${secret}x`, 'cursors').toString('hex')).not.toBe(keys[0]);
  });
});
