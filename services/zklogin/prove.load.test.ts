import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Metrics } from '../core/index.js';
import type { Tier } from '../plans/index.js';
import { PLANS } from '../plans/index.js';
import { startZkLoginE2E, type ZkLoginCaller, type ZkLoginE2E } from '../../test/support/zklogin-e2e.js';
import { LocalProver } from './index.js';

/**
 * /prove under load against a slow local prover (held in flight until the test lets it answer,
 * so nothing depends on timing): the slot pool and the plans' proofs per minute hold exactly,
 * 503 and 429 are not charged, a 4xx costs 2 credits. Settings as shipped (8 slots per process, 6 per organization).
 */
let e2e: ZkLoginE2E;
let holding = false;
let releaseAll: () => void = () => {};
let held = Promise.resolve();
const prover = new LocalProver({ hold: () => (holding ? held : Promise.resolve()) });
const metrics = new Metrics();

/** `suigw_rate_limit_rejections_total{kind="proofs"}` on the gateway's /metrics. */
async function proofRejections(): Promise<number> {
  const { values } = await metrics.rateLimitRejections.get();
  return values.find((value) => value.labels.kind === 'proofs')?.value ?? 0;
}

function hold(): void {
  holding = true;
  held = new Promise<void>((resolve) => { releaseAll = resolve; });
}
function release(): void {
  holding = false;
  releaseAll();
}

beforeAll(async () => {
  e2e = await startZkLoginE2E({ prover, metrics });
});
afterAll(async () => { await e2e.stop(); });

async function proveBodyFor(): Promise<Record<string, unknown>> {
  const maxEpoch = e2e.currentEpoch() + 2;
  const session = e2e.session(maxEpoch);
  const jwt = await e2e.jwt({ nonce: session.nonce });
  return { jwt, extendedEphemeralPublicKey: session.extendedEphemeralPublicKey, maxEpoch, jwtRandomness: session.randomness };
}

/** One /prove at the current instant (the clock does not move: the plan's window is the test's to control). */
async function proveNow(caller: ZkLoginCaller, body: Record<string, unknown>) {
  const response = await e2e.gateway.app.inject({ method: 'POST', url: '/mainnet/v1/zklogin/prove', headers: { 'x-api-key': caller.key }, payload: body });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

/** The organization's credits left, read from a free management call (which charges nothing). */
async function credits(caller: ZkLoginCaller): Promise<number> {
  const response = await e2e.gateway.app.inject({ url: '/mainnet/v1/account', headers: { 'x-api-key': caller.key } });
  return Number(response.headers['x-svc-credit-remaining']);
}

describe('prover slots (8 per process, 6 per organization)', () => {
  it('with every slot held, one organization runs 6 proofs and another the last 2; the other calls get 503 PROVER_BUSY at once; only the proofs run are charged', async () => {
    const heavy = await e2e.newCaller({ tier: 'enterprise' });
    const light = await e2e.newCaller({ tier: 'enterprise' });
    const body = await proveBodyFor();
    const before = { heavy: await credits(heavy), light: await credits(light) };
    hold();
    let answered = 0;
    const count = <T>(response: T) => { answered += 1; return response; };
    const fromHeavy = Array.from({ length: 30 }, () => proveNow(heavy, body).then(count));
    // The refusals do not wait for a slot: they are answered while the 6 proofs are still held.
    await vi.waitFor(() => expect(answered).toBe(24), { timeout: 20_000, interval: 20 });
    expect(prover.stats.inFlight).toBe(6);
    // The heavy organization holding its share leaves 2 slots to the others, and no more.
    const fromLight = Array.from({ length: 5 }, () => proveNow(light, body).then(count));
    await vi.waitFor(() => expect(answered).toBe(27), { timeout: 20_000, interval: 20 });
    expect(prover.stats.inFlight).toBe(8);
    release();
    const heavyAnswers = await Promise.all(fromHeavy);
    const lightAnswers = await Promise.all(fromLight);
    expect(heavyAnswers.filter((r) => r.status === 200)).toHaveLength(6);
    expect(lightAnswers.filter((r) => r.status === 200)).toHaveLength(2);
    const busy = [...heavyAnswers, ...lightAnswers].filter((r) => r.status === 503);
    expect(busy).toHaveLength(27);
    for (const refused of busy) {
      expect(refused.body).toMatchObject({ code: 'PROVER_BUSY', retryAfter: expect.any(Number) });
      expect(refused.headers['retry-after']).toBe(String(refused.body.retryAfter));
    }
    expect(prover.stats.maxInFlight).toBe(8);
    expect(before.heavy - (await credits(heavy))).toBe(6 * 50);
    expect(before.light - (await credits(light))).toBe(2 * 50);
    // The slots are free again.
    expect((await proveNow(heavy, body)).status).toBe(200);
  });
});

describe('proofs per minute per plan', () => {
  it.each<[Tier, number]>([['team', 20], ['growth', 60], ['professional', 120], ['business', 300]])(
    '%s: exactly %d proofs at once, then 429 PROOF_RATE_LIMITED (Retry-After = retryAfter, not charged); one more per 60/limit seconds',
    async (tier, limit) => {
      expect(PLANS[tier].proofsPerMinute).toBe(limit);
      const caller = await e2e.newCaller({ tier });
      const body = await proveBodyFor();
      const before = await credits(caller);
      const rejectedBefore = await proofRejections();
      const statuses: number[] = [];
      for (let i = 0; i < limit + 5; i += 1) {
        const response = await proveNow(caller, body);
        statuses.push(response.status);
        if (response.status === 429) {
          expect(response.body).toMatchObject({ code: 'PROOF_RATE_LIMITED' });
          expect(response.headers['retry-after']).toBe(String(response.body.retryAfter));
          expect(response.body.retryAfter).toBe(Math.ceil(60 / limit));
        }
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.slice(limit)).toEqual([429, 429, 429, 429, 429]);
      expect(before - (await credits(caller))).toBe(limit * 50);
      expect(await proofRejections() - rejectedBefore).toBe(5);

      // One emission interval later exactly one more proof is allowed.
      e2e.gateway.clock.advance(Math.ceil(60_000 / limit));
      expect((await proveNow(caller, body)).status).toBe(200);
      expect((await proveNow(caller, body)).status).toBe(429);
      // A minute later the whole allowance is back.
      e2e.gateway.clock.advance(60_000);
      const again: number[] = [];
      for (let i = 0; i < limit + 1; i += 1) again.push((await proveNow(caller, body)).status);
      expect(again.filter((s) => s === 200)).toHaveLength(limit);
      expect(again.at(-1)).toBe(429);
    },
    // Hundreds of sequential proofs: bounded by the machine, not by anything under test.
    120_000,
  );

  it('enterprise is unlimited', async () => {
    const caller = await e2e.newCaller({ tier: 'enterprise' });
    const body = await proveBodyFor();
    for (let i = 0; i < 310; i += 1) expect((await proveNow(caller, body)).status).toBe(200);
  }, 120_000);

  it('a proof refused for busy slots does not spend the plan allowance', async () => {
    const caller = await e2e.newCaller({ tier: 'team' });
    const body = await proveBodyFor();
    hold();
    let answered = 0;
    const pending = Array.from({ length: 12 }, () => proveNow(caller, body).then((response) => { answered += 1; return response; }));
    // The organization's share of the slots is 6 of 8.
    await vi.waitFor(() => expect(answered).toBe(6), { timeout: 20_000, interval: 20 });
    expect(prover.stats.inFlight).toBe(6);
    release();
    const first = await Promise.all(pending);
    expect(first.filter((r) => r.status === 200)).toHaveLength(6);
    expect(first.filter((r) => r.status === 503)).toHaveLength(6);
    const rest: number[] = [];
    for (let i = 0; i < 15; i += 1) rest.push((await proveNow(caller, body)).status);
    expect(rest.filter((s) => s === 200)).toHaveLength(14);
    expect(rest.at(-1)).toBe(429);
  });
});

describe('charging of failed proofs', () => {
  it('a 4xx costs 2 credits and no proof allowance; 503 and 429 cost nothing', async () => {
    const caller = await e2e.newCaller({ tier: 'team' });
    const body = await proveBodyFor();
    const before = await credits(caller);
    for (let i = 0; i < 10; i += 1) {
      const response = await proveNow(caller, { ...body, jwtRandomness: String(i) });
      expect(response.body).toMatchObject({ code: 'NONCE_MISMATCH' });
    }
    const afterClientErrors = await credits(caller);
    expect(before - afterClientErrors).toBe(10 * 2);
    // The allowance is untouched: all 20 proofs of the minute remain, then 429s are free.
    const statuses: number[] = [];
    for (let i = 0; i < 23; i += 1) statuses.push((await proveNow(caller, body)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(afterClientErrors - (await credits(caller))).toBe(20 * 50);
  });
});
