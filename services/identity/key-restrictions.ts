import { ApiError } from '../core/index.js';
import { originsCover } from './origins.js';
import type { KeyRateLimit } from './principal.js';

/**
 * A key that creates or edits a key passes its own restrictions on, as it does its scopes and
 * expiry: the other key is never usable from an origin, or at a rate, that the calling key is not.
 * Otherwise a `manage` key held to a web origin or a per-key cap could make itself an unrestricted
 * key. A request that names no origins or no cap inherits the caller's; one that asks for wider
 * ones is 403 SCOPE_ESCALATION (the spec's code for a new key asking more than its creator holds).
 */
export interface KeyRestrictions {
  allowedOrigins: readonly string[];
  rateLimit: KeyRateLimit;
}

const RATE_CAPS = ['perKeyRps', 'perIpRps'] as const;

/** The origins a key may hand on: what it asks for, or the caller's own list when it names none. */
export function originsWithin(requested: readonly string[] | undefined, caller: KeyRestrictions): readonly string[] {
  const origins = requested ?? caller.allowedOrigins;
  if (!originsCover(caller.allowedOrigins, origins)) {
    throw new ApiError('SCOPE_ESCALATION', {
      message:
        `The calling key is held to the origins ${caller.allowedOrigins.join(', ')}; ` +
        'allowedOrigins must be within them (an empty list would allow any origin).',
    });
  }
  return origins;
}

/** Each cap the caller has is inherited when not named, and may only be lowered. */
export function rateLimitWithin(requested: Partial<KeyRateLimit> | undefined, caller: KeyRestrictions): KeyRateLimit {
  const rateLimit = { ...caller.rateLimit };
  for (const cap of RATE_CAPS) {
    const value = requested?.[cap];
    if (value !== undefined) rateLimit[cap] = value;
  }
  checkRateLimitWithin(rateLimit, caller);
  return rateLimit;
}

/** SCOPE_ESCALATION when `rateLimit` lifts or raises a cap the caller is held to. */
export function checkRateLimitWithin(rateLimit: KeyRateLimit, caller: KeyRestrictions): void {
  for (const cap of RATE_CAPS) {
    const limit = caller.rateLimit[cap];
    const value = rateLimit[cap];
    if (limit !== null && (value === null || value > limit)) {
      throw new ApiError('SCOPE_ESCALATION', {
        message: `The calling key's ${cap} is ${limit}; rateLimit.${cap} must be a number from 1 to ${limit}.`,
      });
    }
  }
}
