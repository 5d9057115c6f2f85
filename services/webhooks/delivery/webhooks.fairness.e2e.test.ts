import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock, createLogger } from '../../core/index.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { createWebhookRuntime, type WebhookRuntime } from '../webhook-runtime.js';
import { DELIVERY_FAIRNESS } from './delivery-slots.js';

const SECRET = 'webhook-fairness-test-secret-0123456789abcdef';
const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';

/** A receiver that accepts every request and never answers, counting the requests it holds open per path. */
async function startSilentReceiver(): Promise<{ url: string; open: Map<string, number>; mostOpen: Map<string, number>; close(): Promise<void> }> {
  const open = new Map<string, number>();
  const mostOpen = new Map<string, number>();
  const held = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    open.set(path, (open.get(path) ?? 0) + 1);
    mostOpen.set(path, Math.max(mostOpen.get(path) ?? 0, open.get(path)!));
    held.add(response);
    response.once('close', () => {
      held.delete(response);
      open.set(path, open.get(path)! - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open,
    mostOpen,
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Fairness between tenants, counted on real sockets: one organization's endpoints accept
 * connections and never answer; another organization's deliveries still go out while they hang,
 * and the silent endpoints never hold more than their per-endpoint and per-organization slots.
 * Nothing waits for a timeout (the attempt deadline is 60 s): the counts decide.
 */
describe('webhook delivery fairness', () => {
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let runtime: WebhookRuntime;
  let silent: Awaited<ReturnType<typeof startSilentReceiver>>;
  let answering: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let checkpoint = 500n;

  beforeAll(async () => {
    t = await createTestApp({
      sharedPipeline: true,
      tier: 'enterprise',
      env: { SUIGW_SECRET: SECRET, SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', SUIGW_WEBHOOK_TIMEOUT_MS: '60000' },
      extra: { clock },
    });
    runtime = createWebhookRuntime({ config: t.config, secret: SECRET, database: t.db.database, clock, logger: createLogger('silent'), pipeline: t.pipeline!.pipeline, start: false });
    silent = await startSilentReceiver();
    answering = await startWebhookReceiver();
  });
  afterAll(async () => {
    await silent.close();
    await runtime.close();
    await answering.close();
    await t.close();
  });

  async function createHook(key: string, url: string): Promise<string> {
    const response = await call(t, 'POST', '/v1/webhooks', { key, body: { url, type: 'coin', filters: { coinTypes: [SUI] } } });
    expect(response.status).toBe(201);
    return (response.body.data as { id: string }).id;
  }

  async function queue(webhookId: string, count: number): Promise<void> {
    checkpoint += 1n;
    const events = Array.from({ length: count }, (_, i) => ({
      kind: 'coin' as const, data: { checkpoint: String(checkpoint), digest: `D${i}`, timestampMs: clock.now(), address: `0x${'5'.repeat(64)}`, coinType: SUI, amount: String(i) },
    }));
    await runtime.consumer.accept('mainnet', checkpoint, new Map([[webhookId, events]]));
  }

  it('a tenant whose receivers never answer holds at most its slots; another organization\'s deliveries all go out meanwhile', async () => {
    const { perEndpoint, perOrganization, total } = DELIVERY_FAIRNESS;
    // The noisy tenant: three endpoints that never answer, with a backlog older than the victim's.
    const noisyHooks = [];
    for (const path of ['/a', '/b', '/c']) noisyHooks.push(await createHook(t.adminKey, `${silent.url}${path}`));
    for (const hook of noisyHooks) await queue(hook, total);
    // The victim: another organization, one endpoint that answers.
    const seeded = await createOrganization(t.db.database.db, t.clock, { name: 'Victim', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }] });
    const victimKey = await createKey(t.db.database, t.clock, { kind: 'operator' }, {
      organizationId: seeded.organization.id, projectId: seeded.projects[0]!.id, name: 'v', scopes: ['manage'], expiresInDays: 30,
    });
    const victimHook = await createHook(victimKey.apiKey, `${answering.url}/victim`);
    await queue(victimHook, 10);

    const pass = runtime.dispatcher.runDue();
    await vi.waitFor(() => expect(answering.received.filter((r) => r.path === '/victim')).toHaveLength(10), { timeout: 20_000, interval: 20 });
    await vi.waitFor(() => expect([...silent.open.values()].reduce((a, b) => a + b, 0)).toBe(perOrganization), { timeout: 20_000, interval: 20 });
    // At every moment: no silent endpoint above its own limit, the tenant above its own.
    expect(Math.max(...silent.mostOpen.values())).toBe(perEndpoint);
    expect(runtime.dispatcher.slots.inFlightOf(t.organizationId)).toBe(perOrganization);
    // Received is not yet recorded: the log catches up with the receiver.
    await vi.waitFor(async () => {
      const log = await call(t, 'GET', `/v1/webhooks/${victimHook}/deliveries`, { key: victimKey.apiKey });
      expect((log.body.data as { status: string }[]).map((d) => d.status)).toEqual(Array(10).fill('succeeded'));
    }, { timeout: 20_000, interval: 20 });

    // The silent receiver goes away: the held attempts fail, the pass ends.
    await silent.close();
    await pass;
    expect(runtime.dispatcher.slots.inFlight).toBe(0);
  });
});
