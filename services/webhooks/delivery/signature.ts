import { createHmac } from 'node:crypto';
import { signingKey } from '../definitions/signing-secret.js';

/**
 * Standard Webhooks signing (standardwebhooks.com): `v1,` + base64 HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}` with the secret's key bytes. Several secrets (during
 * a rotation) give several signatures, space separated; a receiver accepts any that verifies.
 */
export function signatureHeader(messageId: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', signingKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`)
    .join(' ');
}

/** The three Standard Webhooks headers of one attempt (the timestamp is the attempt's, in seconds). */
export function webhookHeaders(messageId: string, timestampSeconds: number, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(messageId, timestampSeconds, body, secrets),
  };
}
