import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../core/index.js';
import type { KeyCreator, Principal } from '../../identity/index.js';

/** The verified caller of an authenticated route (the hook guarantees one). */
export function caller(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('AUTH_CONTEXT_MISSING');
  return request.principal;
}

export function callerOrganizationId(request: FastifyRequest): string {
  return caller(request).organization.id;
}

export function keyCreator(principal: Principal): KeyCreator {
  return { kind: 'key', keyId: principal.keyId, scopes: principal.scopes, expiresAt: principal.expiresAt };
}
