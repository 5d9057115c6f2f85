import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/management-calls.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/**
 * The POST routes that take no body (rotate a webhook's secret, redeliver, cancel an on-chain
 * plan) are strict like every other (README: an unknown field is 400 VALIDATION_FAILED, never
 * ignored). They read no body at all, so `{"secret": "mine"}` rotated to a secret of the
 * server's choosing and `{"when": "now"}` cancelled at the period's end, each as if it had been
 * honoured. No body, or `{}`, is still what they take.
 */
describe('POST routes without a body', () => {
  let t: TestApp;
  let webhookId: string;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'enterprise' });
    const created = await call(t, 'POST', '/v1/webhooks', { key: t.adminKey, body: { url: 'https://hooks.example.com/x', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    expect(created.status).toBe(201);
    webhookId = (created.body.data as { id: string }).id;
  });
  afterAll(async () => t.close());

  const refused = (key: string) => ({
    status: 400,
    body: {
      error: 'Validation failed', code: 'VALIDATION_FAILED', requestId: expect.any(String),
      message: `body: Unrecognized key: "${key}"`, issues: [`body: Unrecognized key: "${key}"`],
    },
  });

  it.each([
    ['/v1/webhooks/$ID/rotate-secret', { secret: 'whsec_mine' }, 'secret'],
    ['/v1/webhooks/$ID/deliveries/msg_x/redeliver', { url: 'https://other.example.com' }, 'url'],
    ['/v1/billing/onchain/cancel', { when: 'now' }, 'when'],
  ])('%s with %j is 400 VALIDATION_FAILED', async (path, body, key) => {
    const answer = await call(t, 'POST', path.replace('$ID', webhookId), { key: t.adminKey, body });
    expect({ status: answer.status, body: answer.body }).toEqual(refused(key));
  });

  it('a JSON body that is not an object is 400 VALIDATION_FAILED too', async () => {
    const answer = await call(t, 'POST', '/v1/billing/onchain/cancel', { key: t.adminKey, body: '[1]', headers: { 'content-type': 'application/json' } });
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('no body, or {}, is served as before', async () => {
    const bare = await call(t, 'POST', `/v1/webhooks/${webhookId}/rotate-secret`, { key: t.adminKey });
    expect(bare.status).toBe(200);
    const empty = await call(t, 'POST', `/v1/webhooks/${webhookId}/rotate-secret`, { key: t.adminKey, body: {} });
    expect(empty.status).toBe(200);
    expect((await call(t, 'POST', '/v1/billing/onchain/cancel', { key: t.adminKey })).body.code).toBe('ONCHAIN_SUBSCRIPTION_NOT_FOUND');
  });
});
