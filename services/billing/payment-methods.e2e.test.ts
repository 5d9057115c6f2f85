import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import { createOrganization } from '../identity/index.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { runCli, CLI_TIMEOUT_MS } from '../../test/support/cli.js';

/** Billing rules 1 and 8 from the operator's side: `suigw admin` as an operator runs it. */
describe('one payment method: suigw admin card-subscription, and no deposits on a plan', () => {
  let db: TestDatabase;
  let organizationId: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    ({ organization: { id: organizationId } } = await createOrganization(db.database.db, new ManualClock(), { name: 'Acme', tier: 'free' }));
  });
  afterAll(async () => db.drop());

  it('card-subscription --active true|false sets what STRIPE_SUBSCRIPTION_ACTIVE reads', async () => {
    const on = await runCli(['admin', 'card-subscription', '--org', organizationId, '--active', 'true'], { DATABASE_URL: db.url });
    expect({ code: on.code, out: JSON.parse(on.stdout) }).toEqual({ code: 0, out: { organizationId, cardSubscriptionActive: true } });
    const row = () => db.database.db.selectFrom('organizations').select('card_subscription_active').where('id', '=', organizationId).executeTakeFirstOrThrow();
    expect(await row()).toEqual({ card_subscription_active: true });
    const bad = await runCli(['admin', 'card-subscription', '--org', organizationId, '--active', 'maybe'], { DATABASE_URL: db.url });
    expect({ code: bad.code, reason: bad.stderr.split('\n')[0] }).toEqual({ code: 2, reason: '--active is true or false (or yes/no, 1/0)' });
    expect(await row()).toEqual({ card_subscription_active: true });
    // The one yes/no reader of every setting and flag: no reads as false.
    await runCli(['admin', 'card-subscription', '--org', organizationId, '--active', 'no'], { DATABASE_URL: db.url });
    expect(await row()).toEqual({ card_subscription_active: false });
  }, 3 * CLI_TIMEOUT_MS);

  it('grant is refused while an on-chain plan is live (exit 2, balance unchanged), accepted once it ended', async () => {
    const now = new Date();
    await db.database.db.insertInto('onchain_plans').values({
      id: 'plan_live', organization_id: organizationId, network: 'testnet', tier: 'team', interval: 'month', state: 'active',
      allowance_id: '0x1', funder: '0x2', price_micro_usdc: 49_000_000n, created_at: now,
    }).execute();
    const refused = await runCli(['admin', 'grant', '--org', organizationId, '--usd', '5'], { DATABASE_URL: db.url });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is on an on-chain plan: no pay-per-request deposits');
    const balance = () => db.database.db.selectFrom('organizations').select('prepaid_micro_usd').where('id', '=', organizationId).executeTakeFirstOrThrow();
    expect(await balance()).toEqual({ prepaid_micro_usd: '0' });
    await db.database.db.updateTable('onchain_plans').set({ state: 'ended' }).where('id', '=', 'plan_live').execute();
    const granted = await runCli(['admin', 'grant', '--org', organizationId, '--usd', '5'], { DATABASE_URL: db.url });
    expect(granted.code).toBe(0);
    expect(await balance()).toEqual({ prepaid_micro_usd: '5000000' });
  }, 3 * CLI_TIMEOUT_MS);

  it('card-subscription --active true is refused while an on-chain plan is live (exit 2, flag unchanged); false is not', async () => {
    await db.database.db.insertInto('onchain_plans').values({
      id: 'plan_card', organization_id: organizationId, network: 'testnet', tier: 'team', interval: 'month', state: 'cancel_pending',
      allowance_id: '0x3', funder: '0x2', price_micro_usdc: 49_000_000n, created_at: new Date(),
    }).execute();
    const flag = () => db.database.db.selectFrom('organizations').select('card_subscription_active').where('id', '=', organizationId).executeTakeFirstOrThrow();
    const refused = await runCli(['admin', 'card-subscription', '--org', organizationId, '--active', 'true'], { DATABASE_URL: db.url });
    expect({ code: refused.code, reason: refused.stderr.split('\n')[0] })
      .toEqual({ code: 2, reason: `organization ${organizationId} is on an on-chain plan: one payment method at a time (billing rule 1)` });
    expect(await flag()).toEqual({ card_subscription_active: false });
    const off = await runCli(['admin', 'card-subscription', '--org', organizationId, '--active', 'false'], { DATABASE_URL: db.url });
    expect(off.code).toBe(0);
    await db.database.db.updateTable('onchain_plans').set({ state: 'ended' }).where('id', '=', 'plan_card').execute();
    const accepted = await runCli(['admin', 'card-subscription', '--org', organizationId, '--active', 'true'], { DATABASE_URL: db.url });
    expect(accepted.code).toBe(0);
    expect(await flag()).toEqual({ card_subscription_active: true });
  }, 4 * CLI_TIMEOUT_MS);
});
