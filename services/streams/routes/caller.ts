import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../core/index.js';
import type { Principal } from '../../identity/index.js';
import type { StreamDefinition, StreamOwner } from '../definitions/store.js';

export function caller(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('AUTH_CONTEXT_MISSING');
  return request.principal;
}

/** The caller's organization on the network the request was sent to. */
export function owner(request: FastifyRequest): StreamOwner {
  return { organizationId: caller(request).organization.id, network: request.network };
}

export function publicStream(stream: StreamDefinition): { id: string; name: string; type: StreamDefinition['type']; filters: Record<string, unknown>; createdAt: string } {
  return { id: stream.id, name: stream.name, type: stream.type, filters: stream.filters as Record<string, unknown>, createdAt: stream.createdAt };
}
