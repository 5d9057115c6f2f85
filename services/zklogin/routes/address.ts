import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import { ZKLOGIN_COSTS } from '../../metering/index.js';
import type { App } from '../../route-contract/index.js';
import type { ZkLoginDeps } from '../deps.js';
import { addressBody, ZkLoginAddress } from '../schemas.js';
import { requireJson, requirePaidPlan, ZKLOGIN_FIELD_CODES } from './kit.js';
import { caller } from '../../route-contract/index.js';

export function registerAddress(app: App, deps: ZkLoginDeps): void {
  app.post('/v1/zklogin/address', {
    config: { auth: { scope: 'zkLogin' }, cost: ZKLOGIN_COSTS.address, fieldCodes: ZKLOGIN_FIELD_CODES, protocol: 'zklogin' },
    onRequest: requirePaidPlan,
    preValidation: requireJson,
    schema: {
      summary: "A user's zkLogin salt and address",
      description: 'Verifies the JWT (signature against the issuer\'s keys, expiry, issuer one of the four, audience on the organization\'s list, a single-string audience) '
        + 'and returns the user\'s salt, address seed and current-scheme address. The same issuer, audience and subject give the same address in one organization, '
        + 'on every network. Errors: 400 VALIDATION_FAILED, INVALID_JWT, UNSUPPORTED_ISSUER; 403 PLAN_REQUIRED, AUDIENCE_NOT_ALLOWED; 503 SALT_UNAVAILABLE.',
      tags: ['zklogin'],
      body: addressBody,
      response: { 200: z.object({ data: ZkLoginAddress }), ...errorResponses(400, 401, 403, 415, 429, 500, 503) },
    },
  }, async (request) => ({ data: await deps.service.address(caller(request).organization.id, request.body.jwt) }));
}
