import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, systemClock } from '../../services/core/index.js';
import { openDatabase, type Database } from '../../services/db/index.js';
import { createOrganization } from '../../services/identity/index.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { eventually, kubeConfigFor, startApiDouble, TEST_SETTINGS } from '../../test/support/kube-api-server/harness.js';
import type { KubeApiDouble } from '../../test/support/kube-api-server/api-server.js';
import { Operator } from './operator.js';
import { OperatorMetrics } from './operator-metrics.js';

/** `suigw_operator_reconciles_total` counts rebuilds against the API-server double: ok, then error once the database is gone. */
describe('operator reconcile metrics', () => {
  let db: TestDatabase;
  let operatorDatabase: Database;
  let api: KubeApiDouble;
  let operator: Operator;
  const registry = new Registry();
  const metrics = new OperatorMetrics(registry);
  const count = async (result: 'ok' | 'error') =>
    (await metrics.reconciles.get()).values.find((value) => value.labels.result === result)?.value ?? 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    // A handle of the operator's own, closed below to make its rebuilds fail.
    operatorDatabase = await openDatabase({ url: db.url, poolSize: 2 });
    const started = await startApiDouble();
    api = started.api;
    // A Project makes every rebuild read its organization from the database.
    const { organization } = await createOrganization(db.database.db, systemClock, { name: 'Acme', tier: 'growth', projects: [] });
    api.store.create(api.type('projects'), 'team-a', { metadata: { name: 'shop' }, spec: { organizationId: organization.id, network: 'mainnet' } });
    operator = new Operator({
      kubeConfig: kubeConfigFor(started.url, 'op-metrics'),
      database: operatorDatabase,
      clock: systemClock,
      logger: createLogger('silent'),
      settings: TEST_SETTINGS,
      lease: { namespace: 'suigw', name: 'suigw-operator', identity: 'op-metrics', leaseDurationMs: 15_000, retryMs: 100 },
      quietMs: 20,
      maxMs: 100,
      metrics,
    });
  });

  afterAll(async () => {
    await operator?.stop();
    await api?.close();
    await db?.drop();
  });

  it('starts with both results at 0, so a rate of errors exists before the first one', async () => {
    expect((await registry.metrics()).split('\n').filter((line) => line.startsWith('suigw_operator_reconciles_total'))).toEqual([
      'suigw_operator_reconciles_total{result="ok"} 0',
      'suigw_operator_reconciles_total{result="error"} 0',
    ]);
  });

  it('counts a rebuild that completes as ok, one that throws as error', async () => {
    await operator.start();
    await eventually(async () => (await count('ok')) > 0, 'a successful rebuild');
    expect(await count('error')).toBe(0);
    await operatorDatabase.close();
    const ok = await count('ok');
    await operator.rebuild();
    expect(await count('error')).toBeGreaterThanOrEqual(1);
    expect(await count('ok')).toBe(ok);
  });
});
