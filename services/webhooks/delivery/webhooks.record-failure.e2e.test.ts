import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call } from '../../../test/support/management-calls.js';
import { startWebhookHarness, type WebhookHarness } from '../../../test/support/webhook-harness.js';
import { ManualClock } from '../../core/index.js';
import { CLAIM_HOLD_MS } from './dispatcher.js';


interface LoggedDelivery { status: string; attempts: number; responseStatus: number | null }
interface UsageRoute { network: string; route: string; requests: number; credits: number }

/**
 * An attempt the receiver acknowledged whose record then fails (PostgreSQL refuses the write at
 * that moment): the delivery is still pending in the database, so it goes out again. Before, the
 * 2xx was charged before the record was written, and the attempt that went out again was
 * charged once more: the customer paid twice for one event. The fault is real: a trigger makes
 * PostgreSQL refuse to mark a delivery succeeded while the test says so.
 */
describe('a 2xx whose record fails is charged once', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
  let h: WebhookHarness;

  beforeAll(async () => {
    h = await startWebhookHarness({ clock, tier: 'team' });
    await sql`CREATE FUNCTION refuse_succeeded() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.status = 'succeeded' THEN RAISE EXCEPTION 'recording refused (test fault)'; END IF; RETURN NEW; END $$`.execute(h.t.db.database.db);
  });
  beforeEach(() => {
    h.receiver.received.length = 0;
  });
  afterAll(async () => h.close());

  const refuseRecords = (on: boolean) => sql.raw(on
    ? 'CREATE TRIGGER refuse_succeeded BEFORE UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION refuse_succeeded()'
    : 'DROP TRIGGER refuse_succeeded ON webhook_deliveries').execute(h.t.db.database.db);
  async function credits(): Promise<number> {
    const response = await call(h.t, 'GET', '/v1/account', { key: h.t.adminKey });
    expect(response.status).toBe(200);
    return Number(response.headers['x-svc-credit-remaining']);
  }
  async function usage(): Promise<UsageRoute[]> {
    await h.t.pipeline!.metering!.usage.flush();
    const response = await call(h.t, 'GET', '/v1/usage', { key: h.t.adminKey });
    expect(response.status).toBe(200);
    return (response.body.data as { routes: UsageRoute[] }).routes;
  }

  it('sent again once its claim ends, and charged only for the attempt that was recorded', async () => {
    const hook = (await h.createHook('/hook')).id;
    const before = await credits();
    await h.match(hook, 1);
    await refuseRecords(true);
    expect(await h.runtime.dispatcher.runDue()).toBe(0);
    await refuseRecords(false);
    expect(h.receiver.received).toHaveLength(1);
    expect(await h.deliveryLog<LoggedDelivery>(hook)).toMatchObject([{ status: 'pending', attempts: 0 }]);

    // Its claim ends before the record could be written: the delivery goes out again (the same webhook-id), is recorded and charged.
    clock.advance(CLAIM_HOLD_MS);
    expect(await h.runtime.dispatcher.runDue()).toBe(1);
    expect(h.receiver.received).toHaveLength(2);
    expect(new Set(h.receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(await h.deliveryLog<LoggedDelivery>(hook)).toMatchObject([{ status: 'succeeded', attempts: 1, responseStatus: 200 }]);
    expect(await credits()).toBe(before - 1);
    expect(await usage()).toEqual([{ network: 'mainnet', route: 'WEBHOOK delivery', requests: 1, credits: 1 }]);
  });

  it('recorded at the next pass while its claim holds: charged once, and the receiver gets it once', async () => {
    const hook = (await h.createHook('/recorded-later')).id;
    const before = await credits();
    await h.match(hook, 1);
    await refuseRecords(true);
    expect(await h.runtime.dispatcher.runDue()).toBe(0);
    await refuseRecords(false);
    expect(await h.deliveryLog<LoggedDelivery>(hook)).toMatchObject([{ status: 'pending', attempts: 0 }]);
    // Its credit stays held until the outcome is recorded.
    expect(await credits()).toBe(before - 1);

    // The next pass (the dispatcher polls every second) writes what the receiver answered.
    clock.advance(1_000);
    expect(await h.runtime.dispatcher.runDue()).toBe(0);
    expect(await h.deliveryLog<LoggedDelivery>(hook)).toMatchObject([{ status: 'succeeded', attempts: 1, responseStatus: 200 }]);
    expect(await credits()).toBe(before - 1);
    // Nothing goes out again, not even once the claim has ended.
    clock.advance(CLAIM_HOLD_MS);
    expect(await h.runtime.dispatcher.runDue()).toBe(0);
    expect(h.receiver.received).toHaveLength(1);
    expect(await credits()).toBe(before - 1);
    expect(await usage()).toEqual([{ network: 'mainnet', route: 'WEBHOOK delivery', requests: 2, credits: 2 }]);
  });
});
