import type { FastifyRequest } from 'fastify';
import { caller } from '../../route-contract/index.js';
import type { KeyCreator, Principal } from '../../identity/index.js';


export function callerOrganizationId(request: FastifyRequest): string {
  return caller(request).organization.id;
}

export function keyCreator(principal: Principal): KeyCreator {
  return {
    kind: 'key',
    keyId: principal.keyId,
    scopes: principal.scopes,
    expiresAt: principal.expiresAt,
    allowedOrigins: principal.allowedOrigins,
    rateLimit: principal.rateLimit,
  };
}
