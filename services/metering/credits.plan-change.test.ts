import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { createLogger, ManualClock } from '../core/index.js';
import { createOrganization, type Principal } from '../identity/index.js';
import type { Tier } from '../plans/index.js';
import { CreditLedger } from './credits.js';
import { MemoryRateLimiter } from './limiter.memory.js';
import { Meter, type MeteredRequest } from './meter.js';
import { UsageRecorder } from './usage.js';

/** One gateway process: its meter over a ledger and a usage recorder flushed by hand. */
function gatewayProcess(db: TestDatabase, clock: ManualClock) {
  const logger = createLogger('silent');
  const ledger = new CreditLedger({ db: db.database.db, clock, logger });
  const usage = new UsageRecorder({ db: db.database.db, clock, logger, flushIntervalMs: 0, onFlushed: (w) => ledger.reconcile(w) });
  return { meter: new Meter({ limiter: new MemoryRateLimiter(clock), ledger, usage }), usage };
}

/** The key's principal as authentication caches it: the organization's plan as of that moment. */
function principalOf(organizationId: string, tier: Tier, subscription: Principal['organization']['subscription']): Principal {
  return {
    keyId: 'key_5UkucH38VHZYX5EnC', keyName: 'backend', keyKind: 'standard', expiresAt: Date.UTC(2027, 0, 1), scopes: ['data', 'streams'],
    allowedOrigins: [], rateLimit: { perKeyRps: null, perIpRps: null },
    organization: { id: organizationId, name: 'Acme Labs', tier, walletAddress: null, subscription },
    project: { id: 'proj_4oqPr27hBDs4soYUT', name: 'Default', network: 'mainnet' },
  };
}

const stream = (principal: Principal): MeteredRequest => ({ principal, clientIp: '203.0.113.7', network: 'mainnet', route: 'GET /v1/warp/:id/ws', cost: 1 });
const read = (principal: Principal): MeteredRequest => ({ principal, clientIp: '203.0.113.7', network: 'mainnet', route: 'GET /v1/objects/:id', cost: 10 });

describe('credit ledger: the plan is the organization\'s, read from its row, not the one a connection opened with', () => {
  let db: TestDatabase;
  const clock = new ManualClock();
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  /** An organization with 999,990 credits of this period already in PostgreSQL (other processes). */
  async function organizationHavingSpent(tier: Tier): Promise<string> {
    const { organization } = await createOrganization(db.database.db, clock, { name: 'Acme Labs', tier, projects: [] });
    await db.database.db.insertInto('usage_minutes').values({
      organization_id: organization.id, key_id: 'key_earlier', network: 'mainnet', route: 'GET /v1/objects/:id',
      minute: new Date(Date.UTC(2026, 10, 2)), requests: 1, credits: 999_990,
    }).execute();
    return organization.id;
  }

  it('upgraded free → team while a stream opened on free stays open: after the next flush, requests are paid from team\'s credits, and so are the stream\'s events', async () => {
    const organizationId = await organizationHavingSpent('free');
    const p = gatewayProcess(db, clock);
    const connection = await p.meter.admit(stream(principalOf(organizationId, 'free', null)));
    expect(connection.error).toBeUndefined();
    p.meter.settle(connection.ticket, { kind: 'answered', status: 101 });
    expect(connection.ticket.credit.remaining).toBe(1_000_000 - 999_991);

    await db.database.db.updateTable('organizations').set({ tier: 'team' }).where('id', '=', organizationId).execute();
    // A streamed event charged on the connection's ticket (free), then the flush after which the change applies.
    expect(await p.meter.charge(connection.ticket, { credits: 1, route: 'WARP event' })).toBeUndefined();
    await p.usage.flush();

    const upgraded = principalOf(organizationId, 'team', null);
    const first = await p.meter.admit(read(upgraded));
    expect(first.error).toBeUndefined();
    expect(first.ticket.credit.remaining).toBe(25_000_000 - 999_992 - 10);
    p.meter.settle(first.ticket, { kind: 'answered', status: 200 });
    // Each further event on the old connection leaves the organization's plan as it is.
    expect(await p.meter.charge(connection.ticket, { credits: 1, route: 'WARP event' })).toBeUndefined();
    await p.usage.flush();
    const second = await p.meter.admit(read(upgraded));
    expect(second.error).toBeUndefined();
    expect(second.ticket.credit.remaining).toBe(25_000_000 - 999_992 - 10 - 1 - 10);
  });

  it('a subscription that ended while a stream opened on team stays open: after the next flush, the organization has Free\'s credits (spec: ended → Free), on every request and every event', async () => {
    const organizationId = await organizationHavingSpent('free');
    await db.database.db.updateTable('organizations')
      .set({ subscription_plan: 'team', subscription_status: 'active' })
      .where('id', '=', organizationId)
      .execute();
    const p = gatewayProcess(db, clock);
    const connection = await p.meter.admit(stream(principalOf(organizationId, 'free', { plan: 'team', status: 'active', periodEnd: null })));
    expect(connection.error).toBeUndefined();
    p.meter.settle(connection.ticket, { kind: 'answered', status: 101 });
    expect(connection.ticket.credit.remaining).toBe(25_000_000 - 999_991);

    await db.database.db.updateTable('organizations').set({ subscription_status: 'ended' }).where('id', '=', organizationId).execute();
    expect(await p.meter.charge(connection.ticket, { credits: 1, route: 'WARP event' })).toBeUndefined();
    await p.usage.flush();

    const refused = await p.meter.admit(read(principalOf(organizationId, 'free', { plan: 'team', status: 'ended', periodEnd: null })));
    expect(refused.error?.code).toBe('CU_QUOTA_EXCEEDED');
    expect(refused.ticket.credit.remaining).toBe(1_000_000 - 999_992);
    const event = await p.meter.charge(connection.ticket, { credits: 10, route: 'WARP event' });
    expect(event?.code).toBe('CU_QUOTA_EXCEEDED');
    expect(connection.ticket.credit.remaining).toBe(1_000_000 - 999_992);
  });
});
