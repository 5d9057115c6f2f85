import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookHarness, type WebhookHarness } from '../../../test/support/webhook-harness.js';
import { ManualClock } from '../../core/index.js';
import { CREDITS_RECHECK_MS } from './dispatcher.js';
import { DELIVERY_FAIRNESS } from './delivery-slots.js';


interface LoggedDelivery { status: string; attempts: number }

/**
 * A delivery held for credits was never sent: it says nothing of its endpoint's health. Before,
 * the dispatcher gave its slot back as answered, which closed the circuit of a receiver that was
 * down (and forgot its timeouts in a row): once credits returned, a silent receiver was sent a
 * whole endpoint's worth of attempts instead of one probe. Through the real path: the webhook
 * routes, the consumer, the dispatcher and a receiver on loopback that holds its answers.
 */
describe('a delivery held for credits leaves its endpoint\'s circuit as it was', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
  let h: WebhookHarness;

  beforeAll(async () => {
    // Short deadline: the receiver's held answers time out quickly (the counts decide, not the time).
    h = await startWebhookHarness({ clock, tier: 'wallet', timeoutMs: 300 });
  });
  afterAll(async () => h.close());

  const sentTo = (path: string) => h.receiver.received.filter((r) => r.path === path).length;

  it('half-open stays half-open: after a top-up a receiver that is down gets one probe, not perEndpoint attempts', async () => {
    const { timeoutsToOpen, openMs, perEndpoint } = DELIVERY_FAIRNESS;
    const { dispatcher } = h.runtime;
    // 3 prepaid credits (a wallet organization has no monthly ones), read when the ledger first loads.
    await h.t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 30n }).where('id', '=', h.t.organizationId).execute();
    const down = (await h.createHook('/down')).id;
    const up = (await h.createHook('/up')).id;

    // The receiver at /down stops answering: its circuit opens after `timeoutsToOpen` timeouts.
    await h.match(down, timeoutsToOpen);
    h.receiver.answer(...Array<'hang'>(timeoutsToOpen).fill('hang'));
    expect(await dispatcher.runDue()).toBe(timeoutsToOpen);
    expect(dispatcher.slots.circuitOf(down)).toBe('open');

    // /up takes the organization's 3 credits.
    await h.match(up, 3);
    expect(await dispatcher.runDue()).toBe(3);
    expect(sentTo('/up')).toBe(3);

    // The circuit's time is up (half-open: one probe at a time), but the credits are spent: the probe is held, not sent.
    await h.match(down, perEndpoint);
    clock.advance(openMs);
    expect(await dispatcher.runDue()).toBe(0);
    expect(sentTo('/down')).toBe(timeoutsToOpen);
    expect(dispatcher.slots.circuitOf(down)).toBe('half-open');

    // Credits return (a grant, seen at the usage recorder's next interval); /down is still down.
    await h.t.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: 100n }).where('id', '=', h.t.organizationId).execute();
    await h.t.pipeline!.metering!.usage.tick();
    clock.advance(CREDITS_RECHECK_MS);
    h.receiver.answer(...Array<'hang'>(perEndpoint).fill('hang'));
    expect(await dispatcher.runDue()).toBe(1);
    expect(sentTo('/down')).toBe(timeoutsToOpen + 1);
    // The probe timed out: open again, for twice as long.
    expect(dispatcher.slots.circuitOf(down)).toBe('open');
    const log = await h.deliveryLog<LoggedDelivery>(down);
    expect(log.filter((d) => d.attempts === 0).map((d) => d.status)).toEqual(Array(perEndpoint - 1).fill('pending'));
  });
});
