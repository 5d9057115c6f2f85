import { IDENTITY_HEADERS } from '../../identity/index.js';

/**
 * The rate-limit descriptor entries `suigw ratelimit` reads, and the Envoy rate-limit action that
 * produces each (the operator's translation builds the route's `rate_limits` from this table).
 * One descriptor carries them all; entries it does not know are ignored.
 */
export const DESCRIPTOR_KEYS = {
  /** The signed identity token authz added: who calls, which route, at what price. */
  identity: { key: 'identity', action: { request_headers: { header_name: IDENTITY_HEADERS.token, descriptor_key: 'identity', skip_if_absent: true } } },
  /** The visitor's address as Envoy trusts it (`xff_num_trusted_hops`): the per-IP cap's key. */
  remoteAddress: { key: 'remote_address', action: { remote_address: {} } },
} as const;

export interface DescriptorValues {
  identity: string | undefined;
  remoteAddress: string | undefined;
}

/** The first value of each known key across the request's descriptors. */
export function readDescriptors(descriptors: readonly { entries?: { key?: string; value?: string }[] }[] | undefined): DescriptorValues {
  const values: DescriptorValues = { identity: undefined, remoteAddress: undefined };
  for (const descriptor of descriptors ?? []) {
    for (const entry of descriptor.entries ?? []) {
      if (entry.key === DESCRIPTOR_KEYS.identity.key) values.identity ??= entry.value;
      else if (entry.key === DESCRIPTOR_KEYS.remoteAddress.key) values.remoteAddress ??= entry.value;
    }
  }
  return values;
}
