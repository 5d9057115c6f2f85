import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { ManualClock } from '../../core/index.js';
import { migrate } from '../../db/index.js';
import { createOrganization } from '../../identity/index.js';
import { createWebhook, webhooksDb } from '../definitions/store.js';
import { webhookSecretBox } from '../webhook-runtime.js';
import { enqueueDeliveries } from './deliveries.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';
const MIGRATION = '012_cancel_resurrected_deliveries';

/**
 * Migration 012 cancels what the in-flight record used to set back to pending (see
 * webhooks.cancel-in-flight.e2e.test.ts): pending deliveries of deleted or disabled webhooks.
 * A live webhook's pending deliveries, paused ones included, are left alone.
 */
describe(`migration ${MIGRATION}`, () => {
  const clock = new ManualClock();
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  it('cancels the pending deliveries of deleted and disabled webhooks, and only those', async () => {
    const { organization } = await createOrganization(db.database.db, clock, { name: 'o', tier: 'enterprise' });
    const box = webhookSecretBox(randomBytes(32).toString('hex'));
    const hook = async () => (await createWebhook(db.database, clock, box, {
      organizationId: organization.id, network: 'mainnet', limit: 10, type: 'coin', filters: { coinTypes: [SUI] }, url: 'https://hooks.example.com/h',
    })).webhook.id;
    const [live, deleted, disabled] = [await hook(), await hook(), await hook()];
    await enqueueDeliveries(db.database, clock.now(), [live, deleted, disabled].map((webhookId) => ({ webhookId, checkpoint: 1n, position: 0, eventType: 'coin', body: '{}' })));
    // The state the old record left: the webhook deleted or disabled, its delivery pending.
    const webhooks = webhooksDb(db.database);
    await webhooks.updateTable('webhooks').set({ deleted_at: new Date(clock.now()) }).where('id', '=', deleted).execute();
    await webhooks.updateTable('webhooks').set({ enabled: false, disabled_reason: 'manual' }).where('id', '=', disabled).execute();

    await db.database.db.deleteFrom('schema_migrations').where('name', '=', MIGRATION).execute();
    expect((await migrate(db.database)).applied).toEqual([MIGRATION]);

    const rows = await webhooks.selectFrom('webhook_deliveries').select(['webhook_id', 'status', 'next_attempt_at']).execute();
    const byWebhook = new Map(rows.map((row) => [row.webhook_id, { status: row.status, next: row.next_attempt_at === null ? null : 'set' }]));
    expect(Object.fromEntries(byWebhook)).toEqual({
      [live]: { status: 'pending', next: 'set' },
      [deleted]: { status: 'cancelled', next: null },
      [disabled]: { status: 'cancelled', next: null },
    });
  });
});
