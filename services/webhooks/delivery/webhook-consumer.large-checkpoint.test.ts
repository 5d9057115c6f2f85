import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { ManualClock } from '../../core/index.js';
import { createOrganization } from '../../identity/index.js';
import type { AppendedEvent } from '../../streams/index.js';
import { createWebhook, webhooksDb } from '../definitions/store.js';
import { webhookSecretBox } from '../webhook-runtime.js';
import { WebhookMatchConsumer } from './webhook-consumer.js';

const SUI = '0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI';
const WEBHOOKS = 20;
const MATCHES_PER_WEBHOOK = 350;

/**
 * One checkpoint's matches are queued by the ingest in one `accept`. 7,000 of them (20 webhooks
 * seeing 350 SUI balance changes each) are 70,000 bind parameters as one INSERT, past
 * PostgreSQL's 65,535: the statement failed, the ingest cursor stayed put and the network's
 * ingest re-read that checkpoint forever. They are queued in batches of one transaction, so a
 * checkpoint is queued whole or not at all and a retry queues nothing twice.
 */
describe('a checkpoint with more matches than one INSERT takes', () => {
  const clock = new ManualClock();
  let db: TestDatabase;
  let consumer: WebhookMatchConsumer;
  let webhookIds: string[];
  beforeAll(async () => {
    db = await createTestDatabase();
    consumer = new WebhookMatchConsumer({ database: db.database, clock });
    const { organization } = await createOrganization(db.database.db, clock, { name: 'o', tier: 'enterprise' });
    const box = webhookSecretBox(randomBytes(32).toString('hex'));
    webhookIds = [];
    for (let i = 0; i < WEBHOOKS; i++) {
      webhookIds.push((await createWebhook(db.database, clock, box, {
        organizationId: organization.id, network: 'mainnet', limit: WEBHOOKS, type: 'coin', filters: { coinTypes: [SUI] }, url: 'https://hooks.example.com/h',
      })).webhook.id);
    }
  });
  afterAll(async () => db.drop());

  function matches(): Map<string, AppendedEvent[]> {
    return new Map(webhookIds.map((id) => [id, Array.from({ length: MATCHES_PER_WEBHOOK }, (): AppendedEvent => ({ kind: 'coin', data: { coinType: SUI } }))]));
  }

  async function queued(checkpoint: bigint): Promise<{ count: number; positions: number }> {
    const row = await webhooksDb(db.database).selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.count<string>('position').distinct().as('positions')])
      .where('checkpoint', '=', checkpoint.toString()).where('status', '=', 'pending').executeTakeFirstOrThrow();
    return { count: Number(row.count), positions: Number(row.positions) };
  }

  it('queues all 7,000 matches once, and a second accept of the checkpoint queues nothing more', async () => {
    await consumer.accept('mainnet', 5n, matches(), 'chain-a');
    expect(await queued(5n)).toEqual({ count: WEBHOOKS * MATCHES_PER_WEBHOOK, positions: MATCHES_PER_WEBHOOK });

    await consumer.accept('mainnet', 5n, matches(), 'chain-a');
    expect(await queued(5n)).toEqual({ count: WEBHOOKS * MATCHES_PER_WEBHOOK, positions: MATCHES_PER_WEBHOOK });
  });

  it('queues nothing of a checkpoint whose last batch fails, and all of it when accepted again', async () => {
    // PostgreSQL refuses a NUL in text (22021): the last of the 7,000 rows fails the last batch.
    const refused = matches();
    refused.get(webhookIds.at(-1)!)![MATCHES_PER_WEBHOOK - 1] = { kind: 'coin\u0000' as AppendedEvent['kind'], data: {} };
    await expect(consumer.accept('mainnet', 6n, refused, 'chain-a')).rejects.toMatchObject({ code: '22021' });
    expect(await queued(6n)).toEqual({ count: 0, positions: 0 });

    await consumer.accept('mainnet', 6n, matches(), 'chain-a');
    expect(await queued(6n)).toEqual({ count: WEBHOOKS * MATCHES_PER_WEBHOOK, positions: MATCHES_PER_WEBHOOK });
  });
});
