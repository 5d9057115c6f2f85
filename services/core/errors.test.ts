import { describe, expect, it } from 'vitest';
import { ApiError, ERRORS, errorBody, GrpcStatus, WsClose, type ErrorCode } from './errors.js';

/** The spec's tables, copied: "Codes", "Billing codes" (400 unless shown) and "zkLogin codes". */
const SPEC_CODES: Record<string, number> = {
  INSUFFICIENT_SCOPE: 403,
  ORIGIN_NOT_ALLOWED: 403,
  NETWORK_MISMATCH: 403,
  API_KEY_EXPIRED: 401,
  RATE_LIMIT_EXCEEDED: 429,
  CU_QUOTA_EXCEEDED: 429,
  SCOPE_ESCALATION: 403,
  PROJECT_NOT_FOUND: 404,
  PROJECT_SLUG_TAKEN: 409,
  PROJECT_LIMIT_REACHED: 403,
  INVALID_SCOPES: 400,
  INVALID_PROJECT_NAME: 400,
  KEY_NOT_FOUND: 404,
  KEY_LIMIT_REACHED: 403,
  INVALID_BODY: 400,
  AUTH_CONTEXT_MISSING: 401,
  ORGANIZATION_NOT_FOUND: 404,
  UNSUPPORTED_MEDIA_TYPE: 415,
};
const BILLING_CODES: Record<string, number> = {
  ONCHAIN_BILLING_DISABLED: 403,
  PLAN_NOT_AVAILABLE: 400,
  STRIPE_SUBSCRIPTION_ACTIVE: 409,
  ONCHAIN_SUBSCRIPTION_EXISTS: 409,
  ONCHAIN_SUBSCRIPTION_NOT_FOUND: 404,
  ALLOWANCE_NOT_FOUND: 404,
  ALLOWANCE_WRONG_COIN: 400,
  ALLOWANCE_WRONG_SPENDER: 400,
  ALLOWANCE_WRONG_APP: 400,
  ALLOWANCE_WRONG_FUNDER: 400,
  ALLOWANCE_WRONG_ORGANIZATION: 400,
  ALLOWANCE_IN_USE: 409,
  PLAN_CANCELLED: 409,
  CHARGE_IN_PROGRESS: 409,
  INVALID_FUNDER_ADDRESS: 400,
  COIN_NOT_ACCEPTED: 400,
  TX_BUILD_FAILED: 400,
  ALLOWANCE_LIMIT_TOO_LOW: 400,
  ALLOWANCE_EXPIRES_TOO_SOON: 400,
  ALLOWANCE_NOT_STARTED: 400,
  PLAN_UNCHANGED: 400,
  PREPAID_BALANCE_PRESENT: 409,
  BALANCE_UNAVAILABLE: 503,
  DOWNGRADE_NEEDS_RENEWAL: 400,
};
const ZKLOGIN_CODES: Record<string, number> = {
  VALIDATION_FAILED: 400,
  INVALID_JWT: 400,
  UNSUPPORTED_ISSUER: 400,
  NETWORK_NOT_SUPPORTED: 400,
  INVALID_EPHEMERAL_KEY: 400,
  NONCE_MISMATCH: 400,
  MAX_EPOCH_OUT_OF_RANGE: 400,
  INSUFFICIENT_SCOPE: 403,
  PLAN_REQUIRED: 403,
  AUDIENCE_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  CU_QUOTA_EXCEEDED: 429,
  PROOF_RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  PROVER_FAILED: 502,
  PROVER_BUSY: 503,
  SALT_UNAVAILABLE: 503,
  CHAIN_UNAVAILABLE: 503,
};

describe('the error table', () => {
  it.each(Object.entries({ ...SPEC_CODES, ...BILLING_CODES, ...ZKLOGIN_CODES }))('%s is present with status %i, on the wire', (code, status) => {
    const definition = ERRORS[code as ErrorCode];
    expect(definition, `${code} is missing`).toBeDefined();
    expect(definition.status).toBe(status);
    expect(definition.wire).not.toBe(false);
    expect(errorBody(new ApiError(code as ErrorCode)).code).toBe(code);
  });

  it('a missing or invalid key and the organization-wide limit answer without a code (spec: 401 / 429 "no code")', () => {
    for (const code of ['API_KEY_MISSING', 'API_KEY_INVALID', 'API_KEY_DISABLED'] as const) {
      expect(ERRORS[code].status).toBe(401);
      expect(errorBody(new ApiError(code)).code).toBeUndefined();
    }
    expect(ERRORS.ORG_RATE_LIMITED.status).toBe(429);
    expect(errorBody(new ApiError('ORG_RATE_LIMITED')).code).toBeUndefined();
  });

  it('scope and origin failures close WebSockets with 4003 and map to gRPC PERMISSION_DENIED; quota closes 1008', () => {
    for (const code of ['INSUFFICIENT_SCOPE', 'ORIGIN_NOT_ALLOWED'] as const) {
      expect(ERRORS[code].ws).toBe(4003);
      expect(ERRORS[code].grpc).toBe(GrpcStatus.PERMISSION_DENIED);
    }
    expect(ERRORS.CU_QUOTA_EXCEEDED.ws).toBe(WsClose.POLICY);
    expect(ERRORS.API_KEY_MISSING.grpc).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(ERRORS.NOT_FOUND.grpc).toBe(GrpcStatus.NOT_FOUND);
  });

  it('every entry has a sane HTTP status, a gRPC status and a title', () => {
    for (const [code, definition] of Object.entries(ERRORS)) {
      expect(definition.status, code).toBeGreaterThanOrEqual(400);
      expect(definition.status, code).toBeLessThan(600);
      expect(Object.values(GrpcStatus), code).toContain(definition.grpc);
      expect(definition.title.length, code).toBeGreaterThan(0);
    }
  });

  it('the body is {error, message?, code?, requestId?, ...fields}', () => {
    expect(errorBody(new ApiError('KEY_NOT_FOUND'), 'r1')).toEqual({ error: 'Key not found', code: 'KEY_NOT_FOUND', requestId: 'r1' });
    expect(errorBody(new ApiError('PROVER_BUSY', { message: 'all busy', fields: { retryAfter: 3 }, headers: { 'Retry-After': '3' } }))).toEqual({
      error: 'Prover busy',
      message: 'all busy',
      code: 'PROVER_BUSY',
      retryAfter: 3,
    });
  });
});
