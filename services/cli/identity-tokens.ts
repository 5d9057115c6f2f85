import { randomBytes } from 'node:crypto';
import { deriveSubkey, type Clock, type Config } from '../core/index.js';
import type { HttpAppOptions } from '../http/index.js';
import { SignedIdentity } from '../identity/index.js';

/** The identity tokens authz signs and the services verify: one subkey of SUIGW_SECRET. */
export function signedIdentityOf(config: Readonly<Config>, secret: string, clock: Clock): SignedIdentity {
  return new SignedIdentity({ key: deriveSubkey(secret, 'identity-headers'), clock, maxAgeMs: config.identityHeaders.maxAgeMs });
}

/**
 * What every HTTP role behind Envoy trusts (SUIGW_TRUST_IDENTITY_HEADERS): authz's tokens, so the
 * limits ratelimit already counted are not counted again (docs/envoy.md). Each role refuses to
 * start without SUIGW_SECRET; an embedded app without one gets a key of its own, and so trusts
 * no token.
 */
export function trustedIdentityOf(config: Readonly<Config>, clock: Clock): Pick<HttpAppOptions, 'trustedIdentity'> {
  if (!config.identityHeaders.trusted) return {};
  return { trustedIdentity: signedIdentityOf(config, config.secret ?? randomBytes(32).toString('hex'), clock) };
}
