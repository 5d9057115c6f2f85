import type { FastifyRequest } from 'fastify';
import { caller } from '../../route-contract/index.js';
import type { StreamDefinition, StreamOwner } from '../definitions/store.js';


/** The caller's organization on the network the request was sent to. */
export function owner(request: FastifyRequest): StreamOwner {
  return { organizationId: caller(request).organization.id, network: request.network };
}

export function publicStream(stream: StreamDefinition): { id: string; name: string; type: StreamDefinition['type']; filters: Record<string, unknown>; createdAt: string } {
  return { id: stream.id, name: stream.name, type: stream.type, filters: stream.filters as Record<string, unknown>, createdAt: stream.createdAt };
}
