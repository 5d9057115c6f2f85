import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../services/core/index.js';
import { createKey, createOrganization, type KeyRateLimit } from '../../services/identity/index.js';
import { startGatewayProcess, type OwnedProcess } from '../support/processes.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const SHARED_REDIS = process.env['SUIGW_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
/**
 * A charged answer that costs no upstream: an object id that is not one is 400 VALIDATION_FAILED
 * (1 credit). (No upstream is configured; NETWORK_NOT_CONFIGURED, the deployment's own refusal,
 * is not charged.)
 */
const DATA_PATH = '/mainnet/v1/objects/not-an-object-id';
/** The status of DATA_PATH's charged answer. */
const ANSWERED = 400;

interface Tally {
  statuses: Map<number, number>;
  /** 429s without a code: the organization-wide limit, which is charged. */
  orgLimited: number;
  failures: number;
}

/**
 * `workers` loops, each sending one request at a time to its gateway until `until()` says stop
 * or the gateway stops answering (connection refused after shutdown).
 */
async function load(targets: string[], key: string, workers: number, until: (tally: Tally) => boolean): Promise<Tally> {
  const tally: Tally = { statuses: new Map(), orgLimited: 0, failures: 0 };
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      const target = targets[worker % targets.length]!;
      while (!until(tally)) {
        let response: Response;
        try {
          response = await fetch(target + DATA_PATH, { headers: { 'x-api-key': key } });
        } catch {
          tally.failures += 1;
          return;
        }
        const body = (await response.json()) as { code?: string };
        tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
        if (response.status === 429 && body.code === undefined) tally.orgLimited += 1;
      }
    }),
  );
  return tally;
}

const count = (tally: Tally, status: number) => tally.statuses.get(status) ?? 0;

describe('metering across gateway processes (real PostgreSQL, real Redis)', () => {
  let db: TestDatabase;
  let projectId: string;
  let organizationId: string;
  const processes: OwnedProcess[] = [];

  async function keyWith(rateLimit: Partial<KeyRateLimit>): Promise<string> {
    const created = await createKey(db.database, systemClock, { kind: 'operator' }, {
      organizationId, projectId, name: 'load', scopes: ['data'], expiresInDays: 1, rateLimit,
    });
    return created.apiKey;
  }

  async function gateway(env: Record<string, string>) {
    const started = await startGatewayProcess({ DATABASE_URL: db.url, SUIGW_NETWORKS: 'mainnet', ...env });
    processes.push(started);
    return started;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    // Enterprise (2,000 requests per second): the organization-wide rate stays out of the way.
    const created = await createOrganization(db.database.db, systemClock, {
      name: 'Load', tier: 'enterprise', projects: [{ name: 'Default', network: 'mainnet' }],
    });
    organizationId = created.organization.id;
    projectId = created.projects[0]!.id;
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await db.drop();
  });

  it('two gateways sharing one Redis never let a per-key cap be exceeded (tolerance: 1 request)', async () => {
    const prefix = `suigw-test-${randomBytes(6).toString('hex')}:`;
    // A generous decision timeout: on a loaded test machine a slow Redis answer would fail open
    // (documented, and tested in metering-redis-down.test.ts), which is not what this measures.
    const env = { REDIS_URL: SHARED_REDIS, SUIGW_REDIS_KEY_PREFIX: prefix, SUIGW_RATE_LIMIT_TIMEOUT_MS: '2000' };
    const [a, b] = await Promise.all([gateway(env), gateway(env)]);
    const perKeyRps = 20;
    const key = await keyWith({ perKeyRps });
    const started = performance.now();
    let finished = started;
    const tally = await load([a.url, b.url], key, 8, () => {
      finished = performance.now();
      return finished - started > 2_500;
    });
    const elapsedSeconds = (performance.now() - started) / 1000;
    const accepted = count(tally, ANSWERED);
    expect(tally.failures).toBe(0);
    expect([...tally.statuses.keys()].sort()).toEqual([ANSWERED, 429]);
    // GCRA with a burst of one second's worth: at most burst + rate × elapsed.
    expect(accepted).toBeLessThanOrEqual(perKeyRps + Math.ceil(perKeyRps * elapsedSeconds) + 1);
    expect(accepted).toBeGreaterThanOrEqual(perKeyRps);
    expect(count(tally, 429)).toBeGreaterThan(0);
    await Promise.all([a.stop(), b.stop()]);
  }, 60_000);

  it('after SIGTERM mid-load, the credits in PostgreSQL equal the charged responses the client got', async () => {
    // Usage is written only on shutdown here (a minute-long interval): the final flush must carry it all.
    const gw = await gateway({ SUIGW_USAGE_FLUSH_MS: '60000' });
    const key = await keyWith({});
    const before = await totals(db, organizationId);
    let signalled = false;
    const tally = await load([gw.url], key, 8, (t) => {
      if (!signalled && count(t, ANSWERED) >= 300) {
        signalled = true;
        gw.child.kill('SIGTERM');
      }
      return false;
    });
    expect(await gw.exited).toBe(0);
    const after = await totals(db, organizationId);
    const charged = count(tally, ANSWERED) + tally.orgLimited;
    expect(charged).toBeGreaterThanOrEqual(300);
    expect(after.credits - before.credits).toBe(charged);
    // Every request that reached a route was recorded (a 503 while closing never does).
    expect(after.requests - before.requests).toBe(count(tally, ANSWERED) + count(tally, 429));
  }, 60_000);
});

async function totals(db: TestDatabase, organizationId: string): Promise<{ requests: number; credits: number }> {
  const row = await db.database.db
    .selectFrom('usage_minutes')
    .select([sql<string>`coalesce(sum(requests), 0)`.as('requests'), sql<string>`coalesce(sum(credits), 0)`.as('credits')])
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return { requests: Number(row.requests), credits: Number(row.credits) };
}
