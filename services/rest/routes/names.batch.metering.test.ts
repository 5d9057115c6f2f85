import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestE2E, type RestE2E } from '../../../test/support/rest-e2e.js';
import { createKey, createOrganization } from '../../identity/index.js';

/**
 * POST /names/batch makes one upstream lookup per name (the node has no batch lookup), so it is
 * priced per name (docs/costs.md): a batch of N costs what N single lookups do, as a JSON-RPC
 * batch costs per call. It cost 1 credit for up to 100 lookups.
 */
describe('POST /names/batch is charged per name', () => {
  let e2e: RestE2E;
  beforeAll(async () => {
    e2e = await startRestE2E();
  });
  afterAll(async () => e2e.stop());

  const remaining = async (call: () => Promise<Response>) => {
    const response = await call();
    return { status: response.status, remaining: Number(response.headers.get('x-svc-credit-remaining')) };
  };
  const send = async (method: 'GET' | 'POST', path: string, payload?: object, key = e2e.gateway.adminKey) => {
    e2e.gateway.clock.advance(25);
    const response = await e2e.gateway.app.inject({ method, url: `/mainnet/v1${path}`, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
    return new Response(response.body, { status: response.statusCode, headers: response.headers as Record<string, string> });
  };

  it('takes 1 credit per name on success, the same as single lookups, and 1 for a body that fails validation', async () => {
    const start = await remaining(() => send('GET', '/names/alice'));
    expect(start.status).toBe(200);
    const batch = await remaining(() => send('POST', '/names/batch', { names: ['alice', 'shop.alice', 'nobody-has-this'] }));
    expect(batch).toEqual({ status: 200, remaining: start.remaining - 3 });
    const one = await remaining(() => send('POST', '/names/batch', { names: ['alice'] }));
    expect(one).toEqual({ status: 200, remaining: batch.remaining - 1 });
    const invalid = await remaining(() => send('POST', '/names/batch', { names: ['alice', 'not a name!'] }));
    expect(invalid).toEqual({ status: 400, remaining: one.remaining - 1 });
  });

  it('is 429 CU_QUOTA_EXCEEDED, taking nothing, when the credits cannot cover every name', async () => {
    // A wallet organization has no monthly credits: 10 micro-USD prepaid = 1 credit, so 2 here.
    const { db } = e2e.gateway.db.database;
    const { organization, projects } = await createOrganization(db, e2e.gateway.clock, { name: 'W', tier: 'wallet', projects: [{ name: 'D', network: 'mainnet' }] });
    await db.updateTable('organizations').set({ prepaid_micro_usd: 20n }).where('id', '=', organization.id).execute();
    const { apiKey } = await createKey(e2e.gateway.db.database, e2e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: ['data'], expiresInDays: 30,
    });
    const refused = await send('POST', '/names/batch', { names: ['alice', 'shop.alice', 'nobody-has-this'] }, apiKey);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: refused.headers.get('x-request-id') });
    expect(refused.headers.get('x-svc-credit-remaining')).toBe('2');
    const fits = await send('POST', '/names/batch', { names: ['alice', 'shop.alice'] }, apiKey);
    expect(fits.status).toBe(200);
    expect(fits.headers.get('x-svc-credit-remaining')).toBe('0');
  });
});
