import { hkdfSync } from 'node:crypto';

/**
 * The one server secret (`SUIGW_SECRET`) is never used as a key itself: each purpose gets its own
 * subkey (HKDF-SHA256), so a value signed for one purpose (a pagination cursor) can never pass for
 * another (a wallet challenge, an identity header), and rotating one purpose's format is a new
 * `info`, not a new secret.
 */
export type SecretPurpose = 'cursors' | 'identity-headers' | 'wallet-challenges' | 'zklogin-salt' | 'webhook-secrets';

const SALT = 'suigw-secret-v1';

export function deriveSubkey(secret: string, purpose: SecretPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, SALT, `suigw ${purpose}`, 32));
}
