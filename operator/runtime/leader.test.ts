import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, ManualClock, systemClock } from '../../services/core/index.js';
import { createOrganization } from '../../services/identity/index.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import type { KubeApiDouble } from '../../test/support/kube-api-server/api-server.js';
import { eventually, kubeConfigFor, startApiDouble, testOperator } from '../../test/support/kube-api-server/harness.js';
import { ManualTimers } from '../../test/support/kube-api-server/manual-timers.js';
import { LeaseElector } from './leader.js';

const lease = { namespace: 'suigw', name: 'suigw-operator', leaseDurationMs: 15_000, retryMs: 2_000 };

describe('Lease elector (manual clock)', () => {
  let api: KubeApiDouble;
  let url: string;
  beforeAll(async () => ({ api, url } = await startApiDouble()));
  afterAll(() => api.close());

  it('one holder at a time; takeover only after the lease expired; the old holder steps down when it sees the new one', async () => {
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    const logger = createLogger('silent');
    const a = new LeaseElector(kubeConfigFor(url, 'a'), { ...lease, identity: 'a' }, clock, timers, logger);
    const b = new LeaseElector(kubeConfigFor(url, 'b'), { ...lease, identity: 'b' }, clock, timers, logger);
    await a.tick();
    await b.tick();
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    const stored = api.store.get(api.type('leases'), 'suigw', 'suigw-operator');
    expect(stored.spec).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });

    clock.advance(10_000);
    await a.tick(); // renews
    clock.advance(10_000);
    await b.tick(); // 10 s after the renewal: still a's
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);

    clock.advance(6_000); // a missed its renewals: 16 s since the last one
    await b.tick();
    expect(b.isLeader).toBe(true);
    expect(api.store.get(api.type('leases'), 'suigw', 'suigw-operator').spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    await a.tick(); // a sees b holding a live lease
    expect([a.isLeader, b.isLeader]).toEqual([false, true]);
  });

  it('of two replicas racing for an expired lease exactly one wins (resourceVersion)', async () => {
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    const logger = createLogger('silent');
    const electors = ['c', 'd'].map((id) => new LeaseElector(kubeConfigFor(url, id), { ...lease, name: 'race', identity: id }, clock, timers, logger));
    await Promise.all(electors.map((e) => e.tick()));
    expect(electors.filter((e) => e.isLeader)).toHaveLength(1);
  });
});

describe('two operators', () => {
  let db: TestDatabase;
  let api: KubeApiDouble;
  let url: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    ({ api, url } = await startApiDouble());
  });
  afterAll(async () => {
    await api.close();
    await db.drop();
  });

  it('only the leader writes; the other takes over when the leader leaves', async () => {
    const { organization } = await createOrganization(db.database.db, systemClock, { name: 'Two', tier: 'growth', projects: [] });
    const first = testOperator(url, 'op-1', db.database, systemClock);
    const second = testOperator(url, 'op-2', db.database, systemClock);
    await first.start();
    await eventually(() => first.isLeader, 'op-1 leads');
    await second.start();
    api.store.create(api.type('projects'), 'ns', { metadata: { name: 'p' }, spec: { organizationId: organization.id, network: 'mainnet' } });
    api.store.create(api.type('apikeys'), 'ns', { metadata: { name: 'k' }, spec: { project: 'p' } });
    await eventually(() => api.store.get(api.type('apikeys'), 'ns', 'k').status?.keyId, 'key reconciled');
    // Both translate (each serves xDS), with the same result.
    await eventually(() => second.latest?.version === first.latest?.version && second.latest?.keys.length === 1, 'same IR on both');
    expect(second.isLeader).toBe(false);
    const nonLeaseWrites = (token: string) => api.writesBy(token).filter((r) => !r.path.includes('/leases/'));
    expect(nonLeaseWrites('op-1').length).toBeGreaterThan(0);
    expect(api.writesBy('op-2')).toEqual([]);
    expect(await db.database.db.selectFrom('api_keys').select('id').execute()).toHaveLength(1);

    await first.stop();
    expect(api.store.get(api.type('leases'), 'suigw', 'suigw-operator').spec.holderIdentity).toBeUndefined();
    await eventually(() => second.isLeader, 'op-2 takes over');
    api.store.create(api.type('apikeys'), 'ns', { metadata: { name: 'k2' }, spec: { project: 'p' } });
    await eventually(() => api.store.get(api.type('apikeys'), 'ns', 'k2').status?.keyId, 'k2 reconciled by op-2');
    expect(nonLeaseWrites('op-2').length).toBeGreaterThan(0);
    await second.stop();
  });
});
