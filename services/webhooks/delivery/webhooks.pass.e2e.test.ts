import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock, createLogger, loadConfig } from '../../core/index.js';
import { createOrganization } from '../../identity/index.js';
import { createWebhook } from '../definitions/store.js';
import { openPipeline, type OpenedPipeline } from '../../pipeline/index.js';
import { createWebhookRuntime, webhookSecretBox, type WebhookRuntime } from '../webhook-runtime.js';
import { enqueueDeliveries } from './deliveries.js';
import { DELIVERY_FAIRNESS } from './delivery-slots.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

/**
 * One pass of the dispatcher attempts every due delivery a slot can take, even when its claims
 * wait on PostgreSQL. A claim made while an endpoint is at its in-flight limit leaves that
 * endpoint out; if the endpoint's attempts all finish before that claim answers, the pass used to
 * end there, its remaining due deliveries left to the next poll (a second later). Two other
 * processes claiming at the same moment (open transactions on their rows, from other
 * connections) make our claims wait here without depending on the machine's speed.
 */
describe('a dispatcher pass', () => {
  const clock = new ManualClock();
  const secret = randomBytes(32).toString('hex');
  let db: TestDatabase;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let runtime: WebhookRuntime;
  let pipeline: OpenedPipeline;
  const others: pg.Client[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await startWebhookReceiver();
    // The held attempts are answered by the test, never by their deadline.
    const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', SUIGW_WEBHOOK_TIMEOUT_MS: '60000' });
    pipeline = await openPipeline({ config, database: db.database, clock, logger: createLogger('silent') });
    runtime = createWebhookRuntime({ config, secret, database: db.database, clock, logger: createLogger('silent'), pipeline: pipeline.pipeline, start: false });
  });
  afterAll(async () => {
    for (const other of others) await other.end();
    await runtime.close();
    await pipeline.close();
    await receiver.close();
    await db.drop();
  });

  async function webhookOf(name: string): Promise<string> {
    const { organization } = await createOrganization(db.database.db, clock, { name, tier: 'enterprise' });
    const { webhook } = await createWebhook(db.database, clock, webhookSecretBox(secret), {
      organizationId: organization.id, network: 'mainnet', limit: 10, type: 'coin', filters: { coinTypes: [SUI] }, url: `${receiver.url}/${name}`,
    });
    return webhook.id;
  }

  async function queue(webhookId: string, at: number, checkpoint: bigint, count: number): Promise<void> {
    const events = Array.from({ length: count }, (_, position) => ({ webhookId, checkpoint, position, eventType: 'coin', body: '{}' }));
    await enqueueDeliveries(db.database, at, events);
  }

  /** Another process's claim of one delivery, its transaction still open: our claim of that row waits for it. */
  async function otherProcessClaims(webhookId: string, checkpoint: bigint, until: number): Promise<{ pid: number; commit(): Promise<void> }> {
    const other = new pg.Client({ connectionString: db.url });
    others.push(other);
    await other.connect();
    await other.query('BEGIN');
    await other.query('UPDATE webhook_deliveries SET claimed_until = $1 WHERE webhook_id = $2 AND checkpoint = $3', [new Date(until), webhookId, checkpoint.toString()]);
    const { rows } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return { pid: rows[0]!.pid, commit: async () => void (await other.query('COMMIT')) };
  }

  async function waitsOn(pid: number): Promise<boolean> {
    const { rows } = await others[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
    return rows[0]!.n > 0;
  }

  it('ends only when nothing due is left, though its endpoint’s attempts all finished while a claim waited', async () => {
    const { perEndpoint } = DELIVERY_FAIRNESS;
    const start = clock.now();
    const busy = await webhookOf('busy');
    await queue(busy, start, 1n, perEndpoint + 2);
    // Another organization's two deliveries, due now and in a second: two other processes claim them.
    const contested = await webhookOf('contested');
    await queue(contested, start, 1n, 1);
    await queue(contested, start + 1_000, 2n, 1);
    const first = await otherProcessClaims(contested, 1n, start + 120_000);
    const second = await otherProcessClaims(contested, 2n, start + 121_000);
    receiver.answer(...Array<'hang'>(perEndpoint).fill('hang'));

    const pass = runtime.dispatcher.runDue();
    // Our first claim waits on the first process's row; the second delivery falls due meanwhile.
    await expect.poll(() => waitsOn(first.pid), { timeout: 10_000 }).toBe(true);
    clock.advance(1_000);
    await first.commit();
    // The busy endpoint's first attempts are in flight, at its limit; the claim made next leaves
    // it out and waits on the second process's row.
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(perEndpoint);
    await expect.poll(() => waitsOn(second.pid), { timeout: 10_000 }).toBe(true);
    // While that claim waits, every attempt in flight is answered and recorded.
    receiver.answerHanging();
    await expect.poll(() => runtime.dispatcher.slots.inFlight, { timeout: 10_000 }).toBe(0);
    await second.commit();

    expect(await pass).toBe(perEndpoint + 2);
    expect(receiver.received.filter((request) => request.path === '/busy')).toHaveLength(perEndpoint + 2);
  });
});
