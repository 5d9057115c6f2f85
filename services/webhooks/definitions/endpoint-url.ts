import { ApiError } from '../../core/index.js';
import { isHostAllowed } from './endpoint-address.js';

/** Where deliveries may go: HTTPS (http only when allowed) and public addresses unless listed. */
export interface EndpointPolicy {
  allowHttp: boolean;
  /** IPs or CIDRs that are not public but allowed (tests, internal receivers). */
  allowedAddresses: readonly string[];
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
  if (!isHostAllowed(url.hostname, policy.allowedAddresses)) {
    throw refuse('The URL points to a private, loopback or reserved address.');
  }
  return url.toString();
}
