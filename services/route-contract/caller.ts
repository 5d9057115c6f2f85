import type { FastifyRequest } from 'fastify';
import { ApiError } from '../core/index.js';
import type { Principal } from '../identity/index.js';

/** The verified caller of an authenticated route: the pipeline's authenticate stage guarantees one. */
export function caller(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('AUTH_CONTEXT_MISSING');
  return request.principal;
}
