import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` + base64 of the random key bytes (24 here, as Svix). */
const PREFIX = 'whsec_';
const KEY_BYTES = 24;

export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(KEY_BYTES).toString('base64')}`;
}

/** The HMAC key a `whsec_` secret stands for. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/**
 * Secrets at rest: the signer needs the secret itself, so it is sealed (AES-256-GCM under the
 * `webhook-secrets` subkey of SUIGW_SECRET), never hashed. The webhook id is the associated
 * data, so a sealed secret copied onto another row does not open.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('webhook secret key must be 32 bytes');
    this.#key = key;
  }

  seal(webhookId: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(webhookId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  open(webhookId: string, sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(webhookId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
