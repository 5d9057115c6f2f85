import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/index.js';
import { createOrganization } from '../../identity/index.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { claimDueDeliveries, dueDeliveryIds } from './deliveries.js';

const ATTACKER_WEBHOOKS = 20;
const BACKLOG = 20_000;
const SHIPPED = { limit: 32, perEndpoint: 4, perOrganization: 8 };

interface PlanNode { 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] }

/** Rows the plan's nodes read from a table: actual rows × loops, over every scan of it. */
function rowsRead(node: PlanNode, table: string): number {
  const own = node['Relation Name'] === table ? node['Actual Rows'] * node['Actual Loops'] : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);
}

/**
 * The soak (bench/soak.ts) found it: a tenant whose 20 webhooks point at a receiver that never
 * answers piles up due deliveries, and every claim ranked all of them, so the other tenants'
 * deliveries fell behind (p99 lag 162 s after 10 minutes). A claim now reads a few rows per live
 * webhook, whatever the backlog: counted in PostgreSQL's own plan, not timed.
 */
describe('a claim of due webhook deliveries costs the same whatever another tenant’s backlog', () => {
  let db: TestDatabase;
  const now = Date.now();
  beforeAll(async () => {
    db = await createTestDatabase();
    const clock = new ManualClock(now);
    const attacker = (await createOrganization(db.database.db, clock, { name: 'Attacker', tier: 'growth' })).organization.id;
    const victim = (await createOrganization(db.database.db, clock, { name: 'Victim', tier: 'growth' })).organization.id;
    for (let index = 0; index <= ATTACKER_WEBHOOKS; index += 1) {
      await sql`INSERT INTO webhooks (id, organization_id, network, url, type, filters, secret_sealed, created_at)
        VALUES (${`wh_${index}`}, ${index < ATTACKER_WEBHOOKS ? attacker : victim}, 'mainnet', 'https://hooks.example.com/h', 'coin', '{}', 'sealed', now())`.execute(db.database.db);
    }
    await sql`INSERT INTO webhook_deliveries (id, webhook_id, checkpoint, position, event_type, body, status, next_attempt_at, created_at)
      SELECT 'a_' || g, 'wh_' || (g % ${ATTACKER_WEBHOOKS}), g, 0, 'coin', '{}', 'pending', ${new Date(now - 3_600_000)}, now() FROM generate_series(1, ${BACKLOG}) g`.execute(db.database.db);
    await sql`INSERT INTO webhook_deliveries (id, webhook_id, checkpoint, position, event_type, body, status, next_attempt_at, created_at)
      SELECT 'v_' || g, ${`wh_${ATTACKER_WEBHOOKS}`}, g, 0, 'coin', '{}', 'pending', ${new Date(now)}, now() FROM generate_series(1, 10) g`.execute(db.database.db);
    await sql`ANALYZE webhook_deliveries`.execute(db.database.db);
  }, 120_000);
  afterAll(async () => db?.drop());

  it('reads at most perEndpoint rows per live webhook, not the 20,000-row backlog', async () => {
    const options = { ...SHIPPED, now: now + 1_000, claimUntil: now + 60_000, paused: new Set<string>() };
    const { rows } = await sql<{ 'QUERY PLAN': { Plan: PlanNode }[] }>`EXPLAIN (ANALYZE, FORMAT JSON) ${dueDeliveryIds(options)}`.execute(db.database.db);
    const read = rowsRead(rows[0]!['QUERY PLAN'][0]!.Plan, 'webhook_deliveries');
    expect(read).toBeLessThanOrEqual((ATTACKER_WEBHOOKS + 1) * SHIPPED.perEndpoint);
  });

  it('and the claim still shares out fairly: the victim’s deliveries are in it beside the attacker’s eight', async () => {
    const claimed = await claimDueDeliveries(db.database, { ...SHIPPED, now: now + 1_000, claimUntil: now + 60_000, paused: new Set() });
    const byWebhook = (id: string) => claimed.filter((delivery) => delivery.webhookId === id).length;
    expect({ victim: byWebhook(`wh_${ATTACKER_WEBHOOKS}`), attacker: claimed.length - byWebhook(`wh_${ATTACKER_WEBHOOKS}`) }).toEqual({ victim: 4, attacker: 8 });
  });
});
