import { describe, expect, it } from 'vitest';
import { ApiError } from '../core/index.js';
import { AccessRefusal, type Authenticator, type Principal, type RequestAccess } from '../identity/index.js';
import { Meter, type CreditLedger, type LimitCheck, type LimitDecision, type RateLimiter, type UsageRecorder } from '../metering/index.js';
import { RequestPipeline } from './request-pipeline.js';

const principal: Principal = {
  keyId: 'key_5UkucH38VHZYX5EnC', keyName: 'backend', keyKind: 'standard', expiresAt: Date.UTC(2027, 0, 1), scopes: ['streams'], allowedOrigins: [],
  rateLimit: { perKeyRps: null, perIpRps: null },
  organization: { id: 'org_2ph8NxXjkXf3wtQMV', name: 'Acme Labs', tier: 'growth', walletAddress: null, subscription: null },
  project: { id: 'proj_4oqPr27hBDs4soYUT', name: 'Default', network: 'mainnet' },
};
const access: RequestAccess = {
  rule: { scope: 'data' }, queryKeyAllowed: false, network: 'mainnet', queryKeyPresent: false,
  headers: { xApiKey: `svc_pat_${'1'.repeat(44)}`, authorization: undefined }, queryApiKey: undefined, origin: undefined, clientIp: '203.0.113.7',
};
const refusal = () => new AccessRefusal('INSUFFICIENT_SCOPE', principal, { message: "This operation needs the 'data' scope." });

/** Fails as the real one would: with `error`, from its cache (at once) or after a lookup. */
function authenticatorFailing(error: Error, cached: boolean): Authenticator {
  const stub = {
    authenticateCached: () => {
      if (cached) throw error;
      return undefined;
    },
    authenticate: () => Promise.reject(error),
  };
  // A stub of the two methods decideAccess calls; the class's private state is not needed.
  return stub as unknown as Authenticator;
}

/** A limiter that must always ask its store (Redis without a lease): `checkNow` never answers. */
function limiterWaiting(answer: () => Promise<LimitDecision>, checks: LimitCheck[]): RateLimiter {
  return {
    check: (request) => {
      checks.push(request);
      return answer();
    },
    checkNow: () => undefined,
    stats: () => ({ decisions: 0, failOpen: 0, roundTrips: 0 }),
    close: async () => {},
  };
}

function meterOver(limiter: RateLimiter): Meter {
  // Reading the headers of a refusal touches neither the ledger nor the usage recorder.
  return new Meter({ limiter, ledger: {} as CreditLedger, usage: {} as UsageRecorder });
}

const RESET_MS = Date.UTC(2026, 10, 22, 12, 0, 0, 400);

describe('RequestPipeline.authenticate: an identified key\'s refusal with its organization\'s X-RateLimit-* headers', () => {
  it.each([{ cached: true }, { cached: false }])('read from a limiter that has to wait (cached key: $cached), consuming nothing', async ({ cached }) => {
    const checks: LimitCheck[] = [];
    const limiter = limiterWaiting(async () => ({ outcome: 'allowed', org: { limit: 100, remaining: 37, resetAtMs: RESET_MS }, retryAfterMs: 0 }), checks);
    const pipeline = new RequestPipeline({ authenticator: authenticatorFailing(refusal(), cached), meter: meterOver(limiter) });
    const refused = await Promise.resolve().then(() => pipeline.authenticate(access)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AccessRefusal);
    expect(refused).toMatchObject({
      code: 'INSUFFICIENT_SCOPE', status: 403, message: "This operation needs the 'data' scope.",
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '37', 'x-ratelimit-reset': String(Math.ceil(RESET_MS / 1000)) },
    });
    // growth: 100 per second; a read (quantity 0) of the organization's rule, no caps.
    expect(checks).toEqual([{ caps: [], org: { key: `org:${principal.organization.id}`, perSecond: 100, burst: 100 }, quantity: 0 }]);
  });

  it('a limiter that fails to read leaves the refusal as it was (a 403, not a 500)', async () => {
    const limiter = limiterWaiting(() => Promise.reject(new Error('redis down')), []);
    const pipeline = new RequestPipeline({ authenticator: authenticatorFailing(refusal(), false), meter: meterOver(limiter) });
    const refused = await Promise.resolve().then(() => pipeline.authenticate(access)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403, headers: undefined });
  });

  it('a 401 and an unmetered pipeline (SUIGW_METERING=off) read nothing and add nothing', async () => {
    const checks: LimitCheck[] = [];
    const limiter = limiterWaiting(async () => { throw new Error('not read'); }, checks);
    const missing = new ApiError('API_KEY_INVALID');
    const metered = new RequestPipeline({ authenticator: authenticatorFailing(missing, true), meter: meterOver(limiter) });
    expect(() => metered.authenticate(access)).toThrow(missing);
    const unmetered = new RequestPipeline({ authenticator: authenticatorFailing(refusal(), true), meter: undefined });
    expect(() => unmetered.authenticate(access)).toThrow(expect.objectContaining({ code: 'INSUFFICIENT_SCOPE', headers: undefined }));
    expect(checks).toEqual([]);
  });
});
