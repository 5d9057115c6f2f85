import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { ZKLOGIN_COSTS } from '../../metering/index.js';
import type { App } from '../../route-contract/index.js';
import type { ZkLoginDeps } from '../deps.js';
import { proveBody, ZkLoginProof } from '../schemas.js';
import { cancelSignal, planOfCaller, requireJson, requirePaidPlan, upstreamOf, watchRequest, ZKLOGIN_FIELD_CODES } from './kit.js';
import { caller } from '../../route-contract/index.js';

export function registerProve(app: App, deps: ZkLoginDeps): void {
  app.post('/v1/zklogin/prove', {
    config: { auth: { scope: 'zkLogin' }, cost: ZKLOGIN_COSTS.prove, fieldCodes: ZKLOGIN_FIELD_CODES, protocol: 'zklogin' },
    onRequest: [requirePaidPlan, watchRequest],
    preValidation: requireJson,
    schema: {
      summary: 'A zkLogin proof',
      description: 'Checks the JWT (as /address does), that its nonce is the nonce of the ephemeral key, maxEpoch and randomness, and that maxEpoch lies within '
        + 'current..current+30 on the key\'s network; derives the salt (never sent by the caller) and asks the prover (about 3 seconds). 50 credits; a 4xx costs 2; '
        + '429 and 5xx are free. Errors: 400 VALIDATION_FAILED, INVALID_JWT, UNSUPPORTED_ISSUER, NETWORK_NOT_SUPPORTED, INVALID_EPHEMERAL_KEY, NONCE_MISMATCH, '
        + 'MAX_EPOCH_OUT_OF_RANGE; 403 PLAN_REQUIRED, AUDIENCE_NOT_ALLOWED; 429 PROOF_RATE_LIMITED; 502 PROVER_FAILED; 503 PROVER_BUSY, SALT_UNAVAILABLE, '
        + 'CHAIN_UNAVAILABLE (429 and 503 with Retry-After equal to the body\'s retryAfter).',
      tags: ['zklogin'],
      body: proveBody,
      response: { 200: z.object({ data: ZkLoginProof }), ...errorResponses(400, 401, 403, 415, 429, 500, 502, 503) },
    },
  }, async (request) => {
    const organizationId = caller(request).organization.id;
    const data = await deps.service.prove(organizationId, planOfCaller(request), request.network, upstreamOf(deps, request), request.body, cancelSignal(request));
    return { data };
  });
}
