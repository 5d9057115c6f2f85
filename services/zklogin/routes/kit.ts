import { errorCodes, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError } from '../../core/index.js';
import type { Principal } from '../../identity/index.js';
import { planOf, type Plan } from '../../plans/index.js';
import type { FieldCodes } from '../../route-contract/index.js';
import type { Upstream } from '../../upstream/index.js';
import type { ZkLoginDeps } from '../deps.js';

/** Schema failures of these fields answer the spec's own codes (a missing or mistyped field stays VALIDATION_FAILED). */
export const ZKLOGIN_FIELD_CODES: FieldCodes = {
  jwt: 'INVALID_JWT',
  extendedEphemeralPublicKey: 'INVALID_EPHEMERAL_KEY',
  epochs: 'MAX_EPOCH_OUT_OF_RANGE',
};

/** The verified caller (the authentication hook guarantees one on these routes). */
export function caller(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('AUTH_CONTEXT_MISSING');
  return request.principal;
}

/**
 * `onRequest` of the zkLogin endpoints, after authentication and the limit stage: a paid plan
 * (spec: 403 PLAN_REQUIRED on Free; metering prices the refusal at 1 credit). A plan "lacks
 * zkLogin" when the plans file grants it no proofs (Free: 0; every paid plan has some or null).
 */
export async function requirePaidPlan(request: FastifyRequest): Promise<void> {
  const plan = planOf(caller(request).organization);
  if (plan.proofsPerMinute === 0) throw new ApiError('PLAN_REQUIRED', { message: `zkLogin needs a paid plan; this organization is on ${plan.id}.` });
}

export function planOfCaller(request: FastifyRequest): Plan {
  return planOf(caller(request).organization);
}

/**
 * `preValidation`: the body must be JSON with `Content-Type: application/json` (spec). A body
 * of another type is refused by the content-type parser already; this catches a request with no
 * body and no type, as the same 415 UNSUPPORTED_MEDIA_TYPE (priced like a schema failure).
 */
export async function requireJson(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') throw new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type ?? '(none)');
}

/** How to cancel a request's proof when its client leaves. */
const watched = new WeakMap<FastifyRequest, AbortController>();

/** `onRequest` of /prove: a client that leaves cancels the prover call made for it. */
export async function watchRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const cancel = new AbortController();
  watched.set(request, cancel);
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.abort();
  });
}

export function cancelSignal(request: FastifyRequest): AbortSignal | undefined {
  return watched.get(request)?.signal;
}

/** The key's network's shared upstream (its current epoch is read once for many requests); undefined when none is configured. */
export function upstreamOf(deps: ZkLoginDeps, request: FastifyRequest): Upstream | undefined {
  return deps.upstreams.get(request.network);
}
