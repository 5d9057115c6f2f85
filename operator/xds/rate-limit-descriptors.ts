import type { Network } from '../../services/core/index.js';
import { DESCRIPTOR_KEYS } from '../../services/envoy/ratelimit/descriptors.js';

/**
 * The descriptors Envoy's ratelimit filter sends to `suigw ratelimit`, built from the service's
 * own table (services/envoy/ratelimit/descriptors.ts), so both sides read one source: a single
 * descriptor carries the signed identity token authz added (who calls, which route, at what
 * price: the service derives the per-key cap, the organization's plan rate and its credits from
 * it) and Envoy's view of the visitor's address (the per-IP cap).
 */
export const RATELIMIT_DOMAIN = 'suigw';

type Action =
  | { request_headers: { header_name: string; descriptor_key: string; skip_if_absent?: boolean } }
  | { remote_address: Record<string, never> };

export interface RateLimitDescriptor {
  /** What the rate limit service limits with this descriptor. */
  limits: string;
  actions: Action[];
}

export const RATE_LIMIT_DESCRIPTORS: readonly RateLimitDescriptor[] = Object.freeze([
  {
    limits: "the key's perKeyRps and perIpRps (429 RATE_LIMIT_EXCEEDED, not billed), the organization's plan rate (429, billed) and monthly credits (429 CU_QUOTA_EXCEEDED)",
    actions: [DESCRIPTOR_KEYS.identity.action, DESCRIPTOR_KEYS.remoteAddress.action],
  },
]);

/** A virtual host's `rate_limits` (the same on every network: the token names the network). */
export function rateLimits(_network: Network): { actions: Action[] }[] {
  return RATE_LIMIT_DESCRIPTORS.map((descriptor) => ({ actions: descriptor.actions }));
}
