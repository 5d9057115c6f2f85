import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock, createLogger } from '../../core/index.js';
import { createWebhookRuntime, type WebhookRuntime } from '../webhook-runtime.js';

const SECRET = 'webhook-pause-test-secret-0123456789abcdef';

/**
 * The plan-end pause (spec: "past_due → ended: organization returns to Free; webhooks and
 * streams above Free limits pause"): the organization pays Team (5 webhooks), holds 3, its plan
 * ends (Free: 1), the 2 newest pause; when the plan allows again they resume.
 */
describe('webhooks above the plan’s count pause when the plan ends', () => {
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let runtime: WebhookRuntime;
  let checkpoint = 1n;
  const ids: string[] = [];

  const setSubscription = async (status: string) => {
    await t.db.database.db.updateTable('organizations').set({ subscription_plan: 'team', subscription_status: status }).where('id', '=', t.organizationId).execute();
    // The key cache holds the organization's plan for its TTL (3 s): move past it.
    clock.advance(t.config.keyCacheTtlMs);
  };
  const match = async (webhookIds: readonly string[]) => {
    checkpoint += 1n;
    await runtime.consumer.accept('mainnet', checkpoint, new Map(webhookIds.map((id) => [id, [{ kind: 'coin' as const, data: { n: Number(checkpoint) } }]])));
  };
  const pausedFlags = async () => ((await call(t, 'GET', '/v1/webhooks', { key: t.adminKey })).body.data as { id: string; paused: boolean }[]).map((w) => [w.id, w.paused]);
  const targets = async () => (await runtime.consumer.targets('mainnet')).map((target) => target.id);

  beforeAll(async () => {
    t = await createTestApp({
      sharedPipeline: true,
      tier: 'free',
      env: { SUIGW_SECRET: SECRET, SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' },
      extra: { clock },
    });
    receiver = await startWebhookReceiver();
    runtime = createWebhookRuntime({ config: t.config, secret: SECRET, database: t.db.database, clock, logger: createLogger('silent'), pipeline: t.pipeline!.pipeline, start: false });
    await setSubscription('active');
    for (const path of ['/oldest', '/middle', '/newest']) {
      const response = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: `${receiver.url}${path}`, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
      expect(response.status).toBe(201);
      ids.push((response.body.data as { id: string }).id);
    }
  });
  afterAll(async () => {
    await runtime.close();
    await receiver.close();
    await t.close();
  });

  it('on Team all three work', async () => {
    expect(await pausedFlags()).toEqual(ids.map((id) => [id, false]));
    expect(await targets()).toEqual(ids);
  });

  it('the plan ends: the newest two are paused, match nothing and attempt nothing; the oldest delivers', async () => {
    // Queued while the plan was in force: kept, and attempted once the webhook resumes.
    await match(ids);
    await setSubscription('ended');
    expect(await pausedFlags()).toEqual([[ids[0], false], [ids[1], true], [ids[2], true]]);
    expect(await targets()).toEqual([ids[0]]);
    expect(await runtime.dispatcher.runDue()).toBe(1);
    expect(receiver.received.map((r) => r.path)).toEqual(['/oldest']);
    const log = await call(t, 'GET', `/v1/webhooks/${ids[2]}/deliveries`, { key: t.adminKey });
    expect((log.body.data as { status: string; attempts: number }[]).map((d) => [d.status, d.attempts])).toEqual([['pending', 0]]);
    // Creating a fourth is refused at the Free count.
    const over = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: `${receiver.url}/x`, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    expect(over.body.code).toBe('WEBHOOK_LIMIT_REACHED');
  });

  it('the plan allows again: they resume and deliver what was queued before the pause', async () => {
    receiver.received.length = 0;
    await setSubscription('active');
    expect(await pausedFlags()).toEqual(ids.map((id) => [id, false]));
    expect(await targets()).toEqual(ids);
    expect(await runtime.dispatcher.runDue()).toBe(2);
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/middle', '/newest']);
  });

  it('on Free again, deleting the oldest resumes the next oldest (oldest kept, newest paused)', async () => {
    await setSubscription('ended');
    expect((await call(t, 'DELETE', `/v1/webhooks/${ids[0]}`, { key: t.adminKey })).status).toBe(200);
    expect(await pausedFlags()).toEqual([[ids[1], false], [ids[2], true]]);
    expect(await targets()).toEqual([ids[1]]);
  });
});
