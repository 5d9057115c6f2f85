import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { PLANS } from '../../plans/index.js';
import { call } from '../../../test/support/management-calls.js';

/**
 * Spec, Limits: "Projects: set by plan". The limit followed the organization's base tier only:
 * a Free organization paying for Business on chain (subscription in force) was refused its third
 * project with "The free plan allows 2 projects", while its streams and webhooks followed the plan.
 */
describe('POST /v1/projects under a subscription', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'free' });
  });
  afterAll(async () => t.close());

  const subscribe = (plan: string | null, status: string | null) =>
    t.db.database.db.updateTable('organizations').set({ subscription_plan: plan, subscription_status: status }).where('id', '=', t.organizationId).execute();
  const post = (name: string) => call(t, 'POST', '/v1/projects', { key: t.adminKey, body: { name, network: 'testnet' } });

  it('on the free tier alone, its two projects are the limit', async () => {
    expect(PLANS.free.projects).toBe(2);
    const refused = await post('Third');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'PROJECT_LIMIT_REACHED', message: 'The free plan allows 2 projects.' });
  });

  it.each(['active', 'past_due', 'cancel_pending'])('with a business plan %s, the business limit applies', async (status) => {
    await subscribe('business', status);
    const created = await post(`Paid ${status}`);
    expect(created.status).toBe(201);
  });

  it('once the plan has ended, the tier’s limit applies again, naming that plan', async () => {
    await subscribe(null, 'ended');
    const refused = await post('After the end');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'PROJECT_LIMIT_REACHED', message: 'The free plan allows 2 projects.' });
  });

  it('at the business plan’s own limit: 403 naming it', async () => {
    await subscribe('business', 'active');
    const { count } = await t.db.database.db.selectFrom('projects').select((eb) => eb.fn.countAll<string>().as('count')).where('organization_id', '=', t.organizationId).executeTakeFirstOrThrow();
    for (let i = Number(count); i < PLANS.business.projects; i++) expect((await post(`Fill ${i}`)).status).toBe(201);
    const refused = await post('One too many');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'PROJECT_LIMIT_REACHED', message: `The business plan allows ${PLANS.business.projects} projects.` });
  });
});
