import { describe, expect, it } from 'vitest';
import { creditsCharged, ZKLOGIN_COSTS, type ChargeOutcome } from './costs.js';

const answered = (status: number): ChargeOutcome => ({ kind: 'answered', status });

describe('the charging rules of the spec', () => {
  it.each([
    ['2xx: the price', answered(200), 3],
    ['4xx: the price', answered(404), 3],
    ['an answered 499: the price', answered(499), 3],
    ['abandoned by its caller before the answer: nothing', { kind: 'abandoned' } as const, 0],
    ['500: nothing', answered(500), 0],
    ['5xx: nothing', answered(503), 0],
    ['another 429 (e.g. PROOF_RATE_LIMITED): nothing', answered(429), 0],
    ['per-key/per-IP cap: nothing', { kind: 'key-cap' } as const, 0],
    ['organization-wide 429: billed normally', { kind: 'org-rate' } as const, 3],
    ['credits spent: nothing', { kind: 'quota' } as const, 0],
    ['refused for the deployment\'s own reason (NETWORK_NOT_CONFIGURED): nothing', { kind: 'unserved' } as const, 0],
    ['schema failure: 1', { kind: 'schema-failure' } as const, 1],
    ['plan refusal: 1', { kind: 'plan-refused' } as const, 1],
  ])('%s', (_name, outcome, credits) => {
    expect(creditsCharged(3, outcome)).toBe(credits);
  });

  it('a prove costs 50, and 2 when it fails with a 4xx', () => {
    expect(creditsCharged(ZKLOGIN_COSTS.prove, answered(200))).toBe(50);
    expect(creditsCharged(ZKLOGIN_COSTS.prove, answered(400))).toBe(2);
    expect(creditsCharged(ZKLOGIN_COSTS.prove, answered(502))).toBe(0);
    expect(creditsCharged(ZKLOGIN_COSTS.prove, { kind: 'schema-failure' })).toBe(1);
  });

  it('free routes are never charged', () => {
    for (const outcome of [answered(200), answered(400), { kind: 'org-rate' } as const]) expect(creditsCharged('free', outcome)).toBe(0);
  });
});
