import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKeyVia } from '../../test/support/management-calls.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { createLogger } from '../core/index.js';
import { grantPrepaidCredit } from '../identity/index.js';
import { CreditLedger } from './credits.js';
import { UsageRecorder } from './usage.js';

/**
 * Spec: "Management calls are not metered and work at zero balance." Gateway processes may
 * together spend past the balance between flushes (docs/metering.md, the over-spend bound), so a
 * process can see its organization below zero until the next period or grant.
 */
describe('free (management) routes with a balance below zero', () => {
  let t: TestApp;
  let disposable: { id: string };

  beforeAll(async () => {
    t = await createTestApp({ tier: 'wallet', sharedPipeline: true });
    // $0.001 = 1,000 micro-USD = 100 credits.
    await grantPrepaidCredit(t.db.database.db, t.clock, t.organizationId, 1_000n, 'test');
    disposable = await createKeyVia(t, { scopes: ['data'] });
    const ledger = t.pipeline!.metering!.ledger;
    // This process admitted requests for all 100 credits, not flushed yet.
    expect((await ledger.reserve(t.organizationId, 100)).ok).toBe(true);
    // Meanwhile another process charged 50 and flushed them: paid from the balance, now 50 credits.
    const logger = createLogger('silent');
    const other = new CreditLedger({ db: t.db.database.db, clock: t.clock, logger });
    const otherUsage = new UsageRecorder({ db: t.db.database.db, clock: t.clock, logger, flushIntervalMs: 0, onFlushed: (w) => other.reconcile(w) });
    expect((await other.reserve(t.organizationId, 50)).ok).toBe(true);
    otherUsage.record({ organizationId: t.organizationId, keyId: 'key_other', network: 'mainnet', route: 'GET /v1/objects/:id', credits: 50 });
    await otherUsage.flush();
    // This process's next flush reconciles: 100 allowed (50 paid + 50 left), 150 charged.
    await ledger.reconcile([]);
  });
  afterAll(async () => t.close());

  it('GET /v1/keys, GET /v1/auth/me and DELETE /v1/keys/{id} answer 200, with 0 credits remaining in the headers', async () => {
    const list = await call(t, 'GET', '/v1/keys', { key: t.adminKey });
    expect(list.status).toBe(200);
    expect(list.headers['x-svc-credit-remaining']).toBe('0');
    expect((await call(t, 'GET', '/v1/auth/me', { key: t.adminKey })).status).toBe(200);
    const disabled = await call(t, 'DELETE', `/v1/keys/${disposable.id}`, { key: t.adminKey });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ data: { id: disposable.id, enabled: false } });
    expect(disabled.headers['x-svc-credit-remaining']).toBe('0');
  });

  it('a paid call is still refused: 429 CU_QUOTA_EXCEEDED', async () => {
    const refused = await call(t, 'GET', `/v1/objects/0x${'5'.repeat(64)}`, { key: t.adminKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Monthly credits spent', code: 'CU_QUOTA_EXCEEDED', requestId: refused.headers['x-request-id'] });
    expect(refused.headers['x-svc-credit-remaining']).toBe('0');
  });
});
