import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/index.js';
import { createOrganization, hashKeyValue } from '../../identity/index.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { KubeApiDouble } from '../testing/api-server.js';
import type { KubeObject } from '../testing/object-store.js';
import { eventually, startApiDouble, testOperator } from '../testing/harness.js';
import type { Operator } from './operator.js';
import type { GatewayIR } from '../ir.js';

/** The reconcile loop against the API-server double and a real PostgreSQL database. */
describe('operator reconcile loop', () => {
  let db: TestDatabase;
  let api: KubeApiDouble;
  let operator: Operator;
  let organizationId: string;
  const snapshots: GatewayIR[] = [];
  const ns = 'team-a';

  const get = (plural: string, name: string, namespace = ns): KubeObject | undefined => {
    try {
      return api.store.get(api.type(plural), namespace, name);
    } catch {
      return undefined;
    }
  };
  const ready = (plural: string, name: string, reason = 'Reconciled'): Promise<KubeObject> =>
    eventually(() => {
      const object = get(plural, name);
      const condition = (object?.status?.conditions ?? []).find((c: KubeObject) => c.type === 'Ready');
      return condition?.reason === reason && object!.status.observedGeneration === object!.metadata.generation ? object : undefined;
    }, `${plural}/${name} ${reason}`);
  const keyRow = (id: string) => db.database.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();

  beforeAll(async () => {
    db = await createTestDatabase();
    const created = await createOrganization(db.database.db, systemClock, { name: 'Acme', tier: 'growth', projects: [] });
    organizationId = created.organization.id;
    const started = await startApiDouble();
    api = started.api;
    operator = testOperator(started.url, 'op-a', db.database, systemClock);
    operator.onSnapshot((ir) => snapshots.push(ir));
    await operator.start();
    await eventually(() => operator.isLeader, 'leadership');
  });

  afterAll(async () => {
    await operator?.stop();
    await api?.close();
    await db?.drop();
  });

  it('creates the project row for a Project and reports it in the status', async () => {
    api.store.create(api.type('projects'), ns, { metadata: { name: 'shop' }, spec: { organizationId, network: 'mainnet' } });
    const project = await ready('projects', 'shop');
    const row = await db.database.db.selectFrom('projects').selectAll().where('id', '=', project.status.projectId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ organization_id: organizationId, slug: 'shop', network: 'mainnet' });
    expect(project.status.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Reconciled', observedGeneration: 1 }),
      expect.objectContaining({ type: 'Reconciled', status: 'True', reason: 'Reconciled', observedGeneration: 1 }),
    ]);
  });
});
