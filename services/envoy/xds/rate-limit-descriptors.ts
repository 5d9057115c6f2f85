import type { Network } from '../../core/index.js';

/**
 * The descriptors Envoy's ratelimit filter sends to the rate limit service, one table for both
 * sides: the route's `rate_limits` are generated from it and the RLS recognises its entries by
 * `descriptorKey`. Identity comes from headers the authz service adds on an allowed request
 * (ext_authz runs first), the client IP from Envoy's own view of the peer.
 */
export const IDENTITY_HEADERS = Object.freeze({
  keyId: 'x-suigw-key-id',
  organizationId: 'x-suigw-organization-id',
});

export const RATELIMIT_DOMAIN = 'suigw';

export type DescriptorName = 'per-key' | 'per-ip' | 'organization';

type Action =
  | { generic_key: { descriptor_key: string; descriptor_value: string } }
  | { request_headers: { header_name: string; descriptor_key: string } }
  | { remote_address: Record<string, never> };

export interface RateLimitDescriptor {
  name: DescriptorName;
  /** What the RLS limits with this descriptor. */
  limits: string;
  actions(network: Network): Action[];
}

const networkEntry = (network: Network): Action => ({ generic_key: { descriptor_key: 'network', descriptor_value: network } });
const keyEntry: Action = { request_headers: { header_name: IDENTITY_HEADERS.keyId, descriptor_key: 'key_id' } };

export const RATE_LIMIT_DESCRIPTORS: readonly RateLimitDescriptor[] = Object.freeze([
  { name: 'per-key', limits: "the key's perKeyRps (429 RATE_LIMIT_EXCEEDED, not billed)", actions: (network) => [networkEntry(network), keyEntry] },
  {
    name: 'per-ip',
    limits: "the key's perIpRps per visitor IP (429 RATE_LIMIT_EXCEEDED, not billed)",
    actions: (network) => [networkEntry(network), keyEntry, { remote_address: {} }],
  },
  {
    name: 'organization',
    limits: "the organization's plan rate (429, billed) and monthly credits (429 CU_QUOTA_EXCEEDED)",
    actions: (network) => [
      networkEntry(network),
      { request_headers: { header_name: IDENTITY_HEADERS.organizationId, descriptor_key: 'organization_id' } },
    ],
  },
]);

/** A virtual host's `rate_limits`. */
export function rateLimits(network: Network): { actions: Action[] }[] {
  return RATE_LIMIT_DESCRIPTORS.map((descriptor) => ({ actions: descriptor.actions(network) }));
}
