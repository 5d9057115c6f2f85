import { ZKLOGIN_ISSUERS } from '../core/index.js';

export type ZkLoginIssuer = (typeof ZKLOGIN_ISSUERS)[number];

/**
 * Where each supported issuer publishes its signing keys (production defaults; each can be
 * overridden with SUIGW_ZKLOGIN_ISSUER_JWKS). The keys are the spec's exact `iss` strings: a
 * token from `accounts.google.com` without the scheme is not accepted.
 */
export const DEFAULT_ISSUER_JWKS: Readonly<Record<ZkLoginIssuer, string>> = Object.freeze({
  'https://accounts.google.com': 'https://www.googleapis.com/oauth2/v3/certs',
  'https://appleid.apple.com': 'https://appleid.apple.com/auth/keys',
  'https://id.twitch.tv/oauth2': 'https://id.twitch.tv/oauth2/keys',
  'https://www.facebook.com': 'https://www.facebook.com/.well-known/oauth/openid/jwks/',
});

export function isSupportedIssuer(iss: unknown): iss is ZkLoginIssuer {
  return typeof iss === 'string' && (ZKLOGIN_ISSUERS as readonly string[]).includes(iss);
}

/** The JWKS URL of every supported issuer: the defaults with the configured overrides applied. */
export function issuerJwksUrls(overrides: Readonly<Partial<Record<ZkLoginIssuer, string>>>): Record<ZkLoginIssuer, string> {
  return { ...DEFAULT_ISSUER_JWKS, ...overrides };
}
