import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, SecretBox, signingKey } from './signing-secret.js';

describe('webhook signing secrets', () => {
  it('are whsec_ + base64 of 24 random bytes, each new', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(signingKey(secret)).toHaveLength(24);
    expect(newSigningSecret()).not.toBe(secret);
  });

  it('seal and open under the same key and webhook id only', () => {
    const box = new SecretBox(randomBytes(32));
    const secret = newSigningSecret();
    const sealed = box.seal('wh_1', secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open('wh_1', sealed)).toBe(secret);
    expect(() => box.open('wh_2', sealed)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open('wh_1', sealed)).toThrow();
    expect(box.seal('wh_1', secret)).not.toBe(sealed);
  });
});
