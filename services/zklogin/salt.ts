import { hkdfSync } from 'node:crypto';

/** The salt-derivation version returned as `seedVersion` (spec: Versioning 5). */
export const SEED_VERSION = 1;

/** HKDF salt of version 1; a new derivation is a new version beside this one, never a change of it. */
const SALT_V1 = 'suigw-zklogin-salt-v1';

/** Who a salt is for: one organization's user, as the issuer names them for one client ID. */
export interface SaltSubject {
  organizationId: string;
  iss: string;
  aud: string;
  sub: string;
}

/**
 * User salts, derived and never stored: HKDF-SHA256 of the master secret over the organization
 * and (iss, aud, sub), 16 bytes, so every salt is below 2^128 (the circuit's field bound for it).
 * The same user of the same organization gets the same salt (and address) on every network and
 * every replica; another organization gets an unrelated one. The master never leaves the process.
 */
export class SaltDeriver {
  readonly #master: Buffer;

  constructor(master: Buffer) {
    if (master.length < 32) throw new Error('the zkLogin salt master must be at least 32 bytes');
    this.#master = master;
  }

  saltOf(subject: SaltSubject): bigint {
    // JSON keeps the four fields unambiguous (no separator a claim could contain can collide).
    const info = JSON.stringify([subject.organizationId, subject.iss, subject.aud, subject.sub]);
    const bytes = Buffer.from(hkdfSync('sha256', this.#master, SALT_V1, info, 16));
    return BigInt(`0x${bytes.toString('hex')}`);
  }
}
