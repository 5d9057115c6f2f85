import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/test-app.js';
import { call } from '../../../test/support/management-calls.js';

const FILTERS = { coinTypes: ['0x2::sui::SUI'] };

/**
 * A stream's name follows the rule of every name the management API stores (README, Management
 * API): control characters other than tab and newline are 400 VALIDATION_FAILED. Key and project
 * names refused them; a stream was created with `"bell\u0007"` as its name.
 */
describe('/v1/streams names', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ tier: 'team' });
  });
  afterAll(async () => t.close());

  it.each(['bell \u0007', 'escape \u001b[31m', 'delete \u007f', 'c1 \u0085', 'override \u202egnp.exe', 'isolate \u2066x\u2069'])('%j is 400 VALIDATION_FAILED on create and on rename', async (name) => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name, type: 'coin', filters: FILTERS } });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: 'VALIDATION_FAILED', message: 'body.name: must not contain lone surrogates, control characters or bidirectional overrides' });

    const stream = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: 'plain', type: 'coin', filters: FILTERS } });
    const id = (stream.body.data as { id: string }).id;
    const renamed = await call(t, 'PATCH', `/v1/streams/${id}`, { key: t.adminKey, body: { name } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.code).toBe('VALIDATION_FAILED');
    await call(t, 'DELETE', `/v1/streams/${id}`, { key: t.adminKey });
  });

  it('tabs, newlines and any other script are kept as sent (trimmed)', async () => {
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name: ' Swaps\tnew\nline 日本 🚀 ', type: 'coin', filters: FILTERS } });
    expect(created.status).toBe(201);
    expect((created.body.data as { name: string }).name).toBe('Swaps\tnew\nline 日本 🚀');
  });

  it('right-to-left text and its direction marks are kept as sent', async () => {
    const name = 'עסקאות \u200f(2)\u200e';
    const created = await call(t, 'POST', '/v1/streams', { key: t.adminKey, body: { name, type: 'coin', filters: FILTERS } });
    expect(created.status).toBe(201);
    expect((created.body.data as { name: string }).name).toBe(name);
  });
});
