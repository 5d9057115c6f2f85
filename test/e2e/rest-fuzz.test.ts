import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';
import { FIXED_PATHS, prng, randomCase, type FuzzCase } from '../support/rest-fuzz.js';

/**
 * Inputs that once found a fault or sit on a boundary, replayed on every run. `$ADDRESS` and
 * `$DIGEST` stand for a funded simnet account and one of its transactions.
 */
const CORPUS = JSON.parse(readFileSync(new URL('./rest-fuzz.corpus.json', import.meta.url), 'utf8')) as (FuzzCase & { why: string })[];

/** Random cases per run: enough to touch every route many times, few enough for two shared cores. */
const RANDOM_CASES = Number(process.env.SUIGW_FUZZ_CASES ?? 240);
const SEED = Number(process.env.SUIGW_FUZZ_SEED ?? 20261123);
const CONCURRENCY = 4;

describe('REST fuzz over every path parameter and query (random and boundary values)', () => {
  let e2e: RestE2E;
  let known: { address: string; digest: string };
  beforeAll(async () => {
    e2e = await startRestE2E();
    const address = e2e.address('alice');
    await e2e.faucet(address);
    const latest = await e2e.get('/transactions/latest?limit=1');
    known = { address, digest: latest.body.data[0].digest as string };
  });
  afterAll(async () => { await e2e.stop(); });

  async function send(c: FuzzCase): Promise<{ status: number; code: unknown }> {
    const url = `/mainnet/v1${c.path.replaceAll('$ADDRESS', known.address).replaceAll('$DIGEST', known.digest)}`;
    const body = c.body === undefined ? undefined : JSON.stringify(c.body).replaceAll('$ADDRESS', known.address).replaceAll('$DIGEST', known.digest);
    // 25 ms of test clock per request: inside the plan's rate, so every answer is the route's.
    e2e.gateway.clock.advance(25);
    const response = await e2e.gateway.app.inject({
      method: c.method, url,
      headers: { 'x-api-key': e2e.gateway.adminKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: body }),
    });
    const parsed = (() => { try { return response.json() as { code?: unknown }; } catch { return {}; } })();
    return { status: response.statusCode, code: parsed.code };
  }

  async function run(cases: FuzzCase[]) {
    const failures: { case: FuzzCase; status: number; code: unknown }[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < cases.length; i += CONCURRENCY) {
      await Promise.all(cases.slice(i, i + CONCURRENCY).map(async (c) => {
        const { status, code } = await send(c);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 500) failures.push({ case: c, status, code });
      }));
    }
    return { failures, statuses: Object.fromEntries(statuses) };
  }

  it('the corpus: each answers with its expected status, and none with 5xx', async () => {
    const wrong: unknown[] = [];
    for (const c of CORPUS) {
      const { status, code } = await send(c);
      const expected = (c as { expect?: [number, string?] }).expect;
      if (status >= 500 || (expected && (status !== expected[0] || (expected[1] !== undefined && code !== expected[1])))) {
        wrong.push({ ...c, status, code });
      }
    }
    expect(wrong).toEqual([]);
    expect(Object.values(e2e.upstream.breakers()).filter((s) => s !== 'closed')).toEqual([]);
  });

  it(`${RANDOM_CASES} random requests (seed ${SEED}) and the fixed routes: no 5xx, no breaker opens`, async () => {
    const random = prng(SEED);
    const cases: FuzzCase[] = [
      ...FIXED_PATHS.map((path) => ({ method: 'GET' as const, path })),
      ...Array.from({ length: RANDOM_CASES }, () => randomCase(random, known)),
    ];
    const { failures, statuses } = await run(cases);
    expect(failures).toEqual([]);
    // Only documented answers: found, bad input, unknown; 414 is the router's bound on one path
    // parameter (100 characters), met by long random names.
    expect(Object.keys(statuses).map(Number).filter((s) => ![200, 400, 404, 414].includes(s))).toEqual([]);
    expect(Object.values(e2e.upstream.breakers()).filter((s) => s !== 'closed')).toEqual([]);
  }, 30_000 + RANDOM_CASES * 100);
});
