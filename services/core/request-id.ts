import { randomUUID } from 'node:crypto';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * A request's id: the caller's (or Envoy's) `x-request-id` when it is a sane token, a fresh UUID
 * otherwise. The gateway and the Envoy-facing services pick it the same way, so a refusal by
 * authz or ratelimit carries the id the gateway would have logged.
 */
export function requestIdFrom(given: unknown): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
