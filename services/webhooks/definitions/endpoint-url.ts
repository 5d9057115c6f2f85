import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../../core/index.js';

/** Where deliveries may go: HTTPS (http only when allowed) and public addresses unless listed. */
export interface EndpointPolicy {
  allowHttp: boolean;
  /** IPs or CIDRs that are not public but allowed (tests, internal receivers). */
  allowedAddresses: readonly string[];
}

/** Whether an IP address may be reached: public unicast, or on the allowed list. */
export function isAddressAllowed(address: string, allowedAddresses: readonly string[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 address it maps.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  for (const entry of allowedAddresses) {
    if (entry.includes('/')) {
      const range = ipaddr.parseCIDR(entry);
      if (range[0].kind() === parsed.kind() && parsed.match(range)) return true;
    } else if (ipaddr.parse(entry).toString() === parsed.toString()) {
      return true;
    }
  }
  return parsed.range() === 'unicast';
}

function refuse(message: string): ApiError {
  return new ApiError('WEBHOOK_URL_NOT_ALLOWED', { message });
}

/**
 * Checks an endpoint URL when it is set (create, PATCH). A host name is checked again at every
 * delivery, on the address it resolves to (the delivery agent), since DNS can change; here only
 * what the URL itself says is refused early.
 */
export function checkEndpointUrl(value: string, policy: EndpointPolicy): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('Not an absolute URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw refuse(policy.allowHttp ? 'The URL must use https or http.' : 'The URL must use https.');
  }
  // Credentials in a URL end up in logs and dashboards: the signature authenticates deliveries instead.
  if (url.username !== '' || url.password !== '') throw refuse('The URL must not carry a user name or password.');
  if (url.hash !== '') throw refuse('The URL must not carry a fragment.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : isIP(host) !== 0 ? host : undefined;
  if (literal !== undefined && !isAddressAllowed(literal, policy.allowedAddresses)) {
    throw refuse('The URL points to a private, loopback or reserved address.');
  }
  return url.toString();
}
