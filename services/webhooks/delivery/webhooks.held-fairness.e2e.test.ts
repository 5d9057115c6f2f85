import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookHarness, type WebhookHarness } from '../../../test/support/webhook-harness.js';
import { ManualClock } from '../../core/index.js';
import { createKey, createOrganization } from '../../identity/index.js';
import { CREDITS_RECHECK_MS } from './dispatcher.js';
import { DELIVERY_FAIRNESS } from './delivery-slots.js';


interface LoggedDelivery { status: string; attempts: number }

/**
 * Deliveries held for credits take nothing from other organizations: a tenant whose credits are
 * spent, with a backlog older than another's and larger than the process's slots, is left out of
 * claims after its first held attempts, so the other tenant's deliveries all go out in the same
 * pass, and the held ones wait pending, unattempted, until a top-up, then all go out.
 */
describe('held deliveries of one organization and another organization\'s deliveries', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
  let h: WebhookHarness;

  beforeAll(async () => {
    // A wallet organization has no monthly credits and, here, nothing prepaid: its credits are spent.
    h = await startWebhookHarness({ clock, tier: 'wallet' });
  });
  afterAll(async () => h.close());

  const statuses = async (webhookId: string, key: string) => {
    const response = await call(h.t, 'GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`, { key });
    expect(response.status).toBe(200);
    return (response.body.data as LoggedDelivery[]).map((d) => `${d.status}/${d.attempts}`);
  };
  const sentTo = (prefix: string) => h.receiver.received.filter((r) => r.path.startsWith(prefix)).length;

  it('the other tenant\'s deliveries all go out in the same pass; the held ones go out after a top-up', async () => {
    const { total } = DELIVERY_FAIRNESS;
    // The spent tenant: 5 webhooks, 10 deliveries each (more than the process's slots), queued first.
    const spentHooks: string[] = [];
    for (let n = 0; n < 5; n += 1) spentHooks.push((await h.createHook(`/spent/${n}`)).id);
    for (const hook of spentHooks) await h.match(hook, 10);
    expect(spentHooks.length * 10).toBeGreaterThan(total);
    // The other tenant, with credits.
    const seeded = await createOrganization(h.t.db.database.db, h.t.clock, { name: 'Paying', tier: 'team', projects: [{ name: 'Default', network: 'mainnet' }] });
    const payingKey = (await createKey(h.t.db.database, h.t.clock, { kind: 'operator' }, {
      organizationId: seeded.organization.id, projectId: seeded.projects[0]!.id, name: 'p', scopes: ['manage'], expiresInDays: 30,
    })).apiKey;
    const created = await call(h.t, 'POST', '/v1/webhooks', { key: payingKey, body: { url: `${h.receiver.url}/paying`, type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    expect(created.status).toBe(201);
    const payingHook = (created.body.data as { id: string }).id;
    await h.match(payingHook, 10);

    expect(await h.runtime.dispatcher.runDue()).toBe(10);
    expect(sentTo('/paying')).toBe(10);
    expect(sentTo('/spent/')).toBe(0);
    expect(await statuses(payingHook, payingKey)).toEqual(Array(10).fill('succeeded/1'));
    for (const hook of spentHooks) expect(await statuses(hook, h.t.adminKey)).toEqual(Array(10).fill('pending/0'));
    // Left out of claims: a pass right after sends nothing and spends no attempt.
    expect(await h.runtime.dispatcher.runDue()).toBe(0);

    // A top-up of 100 credits, seen at the usage recorder's next interval; tried again after CREDITS_RECHECK_MS.
    await h.t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 1_000n }).where('id', '=', h.t.organizationId).execute();
    await h.t.pipeline!.metering!.usage.tick();
    clock.advance(CREDITS_RECHECK_MS);
    expect(await h.runtime.dispatcher.runDue()).toBe(50);
    expect(sentTo('/spent/')).toBe(50);
    for (const hook of spentHooks) expect(await statuses(hook, h.t.adminKey)).toEqual(Array(10).fill('succeeded/1'));
    const account = await call(h.t, 'GET', '/v1/account', { key: h.t.adminKey });
    expect(account.headers['x-svc-credit-remaining']).toBe('50');
  });
});
