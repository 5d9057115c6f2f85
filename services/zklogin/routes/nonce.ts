import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { ZKLOGIN_COSTS } from '../../metering/index.js';
import type { App } from '../../route-contract/index.js';
import type { ZkLoginDeps } from '../deps.js';
import { nonceBody, ZkLoginNonce } from '../schemas.js';
import { requireJson, requirePaidPlan, upstreamOf, ZKLOGIN_FIELD_CODES } from './kit.js';

export function registerNonce(app: App, deps: ZkLoginDeps): void {
  app.post('/v1/zklogin/nonce', {
    config: { auth: { scope: 'zkLogin' }, cost: ZKLOGIN_COSTS.nonce, fieldCodes: ZKLOGIN_FIELD_CODES, protocol: 'zklogin' },
    onRequest: requirePaidPlan,
    preValidation: requireJson,
    schema: {
      summary: 'A zkLogin sign-in nonce',
      description: 'Makes the nonce for the OAuth request from the extended ephemeral public key, maxEpoch = current epoch of the key\'s network + `epochs`, '
        + 'and fresh randomness. Nothing is stored. Errors: 400 VALIDATION_FAILED, NETWORK_NOT_SUPPORTED, INVALID_EPHEMERAL_KEY, MAX_EPOCH_OUT_OF_RANGE; '
        + '403 PLAN_REQUIRED; 503 CHAIN_UNAVAILABLE.',
      tags: ['zklogin'],
      body: nonceBody,
      response: { 200: z.object({ data: ZkLoginNonce }), ...errorResponses(400, 401, 403, 415, 429, 500, 503) },
    },
  }, async (request) => ({
    data: await deps.service.nonce(request.network, upstreamOf(deps, request), {
      extendedEphemeralPublicKey: request.body.extendedEphemeralPublicKey,
      epochs: request.body.epochs ?? 2,
    }),
  }));
}
