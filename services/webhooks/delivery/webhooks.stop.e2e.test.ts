import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock, createLogger, loadConfig } from '../../core/index.js';
import { createOrganization } from '../../identity/index.js';
import { createWebhook, webhooksDb } from '../definitions/store.js';
import { openPipeline, type OpenedPipeline } from '../../pipeline/index.js';
import { createWebhookRuntime, webhookSecretBox } from '../webhook-runtime.js';
import { enqueueDeliveries } from './deliveries.js';
import { DELIVERY_FAIRNESS } from './delivery-slots.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

/**
 * A process that stops (SIGTERM: `suigw streams`, `suigw dev`) finishes the attempts it has in
 * flight and starts no more: the rest of the backlog stays pending, unclaimed, for the other
 * processes (or this one's next start). Before, the running pass went on claiming until nothing
 * was due, so a stop took as long as the backlog (past the pod's grace period, then SIGKILL: the
 * usage of what it delivered meanwhile was never written and its claims were held 2 minutes).
 */
describe('a dispatcher that stops', () => {
  const clock = new ManualClock();
  const secret = randomBytes(32).toString('hex');
  let db: TestDatabase;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let pipeline: OpenedPipeline;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await startWebhookReceiver();
    // The held attempts are answered by the test, never by their deadline.
    const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', SUIGW_WEBHOOK_TIMEOUT_MS: '60000' });
    pipeline = await openPipeline({ config, database: db.database, clock, logger: createLogger('silent') });
  });
  afterAll(async () => {
    await pipeline.close();
    await receiver.close();
    await db.drop();
  });

  it('finishes the attempts in flight, claims nothing more, and leaves the backlog pending and unclaimed', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', SUIGW_WEBHOOK_TIMEOUT_MS: '60000' });
    const runtime = createWebhookRuntime({ config, secret, database: db.database, clock, logger: createLogger('silent'), pipeline: pipeline.pipeline, start: true });
    const { organization } = await createOrganization(db.database.db, clock, { name: 'backlog', tier: 'enterprise' });
    const { webhook } = await createWebhook(db.database, clock, webhookSecretBox(secret), {
      organizationId: organization.id, network: 'mainnet', limit: 10, type: 'coin', filters: { coinTypes: [SUI] }, url: `${receiver.url}/backlog`,
    });
    const backlog = 20;
    await enqueueDeliveries(db.database, clock.now(), Array.from({ length: backlog }, (_, position) => ({ webhookId: webhook.id, checkpoint: 1n, position, eventType: 'coin', body: '{}' })));
    receiver.answer(...Array.from({ length: backlog }, () => 'hang' as const));

    runtime.dispatcher.wake();
    const { perEndpoint } = DELIVERY_FAIRNESS;
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(perEndpoint);
    let stopped = false;
    const stopping = runtime.close().then(() => { stopped = true; });
    // The attempts in flight are answered: the stop completes with them, and nothing more is sent.
    receiver.answerHanging(200);
    await expect.poll(() => stopped, { timeout: 10_000 }).toBe(true);
    await stopping;
    expect(receiver.received).toHaveLength(perEndpoint);

    const rows = await webhooksDb(db.database).selectFrom('webhook_deliveries').select(['status', 'claimed_until'])
      .where('webhook_id', '=', webhook.id).execute();
    expect(rows.filter((row) => row.status === 'succeeded')).toHaveLength(perEndpoint);
    expect(rows.filter((row) => row.status === 'pending' && row.claimed_until === null)).toHaveLength(backlog - perEndpoint);
    receiver.answerHanging(200);
  });
});
