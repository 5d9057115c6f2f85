import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../services/core/index.js';
import { createOrganization, hashKeyValue } from '../../services/identity/index.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import type { KubeApiDouble } from '../../test/support/kube-api-server/api-server.js';
import type { KubeObject } from '../../test/support/kube-api-server/object-store.js';
import { eventually, startApiDouble, testOperator } from '../../test/support/kube-api-server/harness.js';
import type { Operator } from './operator.js';
import type { GatewayIR } from '../ir.js';

/** The reconcile loop against the API-server double and a real PostgreSQL database. */
describe('operator reconcile loop', () => {
  let db: TestDatabase;
  let api: KubeApiDouble;
  let operator: Operator;
  let apiUrl: string;
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
  const keyRowsNamed = async (name: string) => (await db.database.db.selectFrom('api_keys').select(['id']).where('name', '=', name).execute()).length;

  beforeAll(async () => {
    db = await createTestDatabase();
    const created = await createOrganization(db.database.db, systemClock, { name: 'Acme', tier: 'growth', projects: [] });
    organizationId = created.organization.id;
    const started = await startApiDouble();
    api = started.api;
    apiUrl = started.url;
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

  it('creates a key for an ApiKey: the value only in a Secret named in the status, a finalizer, a key row', async () => {
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'backend' }, spec: { project: 'shop', scopes: ['data', 'streams'], rateLimit: { perKeyRps: 50 } } });
    const key = await ready('apikeys', 'backend');
    expect(key.metadata.finalizers).toEqual(['suigw.io/revoke-key']);
    expect(key.status).toMatchObject({ secretName: 'backend-apikey', network: 'mainnet', observedGeneration: 1 });
    expect(JSON.stringify(key)).not.toContain('svc_pat_');
    const secret = get('secrets', 'backend-apikey')!;
    const value = Buffer.from(secret.data.apiKey, 'base64').toString('utf8');
    expect(value).toMatch(/^svc_pat_/);
    expect(secret.metadata.annotations['suigw.io/key-id']).toBe(key.status.keyId);
    expect(secret.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ApiKey', name: 'backend', uid: key.metadata.uid })]);
    const row = await keyRow(key.status.keyId);
    expect(row).toMatchObject({ hash: hashKeyValue(value), enabled: true, scopes: ['data', 'streams'], organization_id: organizationId, project_id: expect.stringMatching(/^proj_/) });
    expect(new Date(row!.expires_at).toISOString()).toBe(key.status.expiresAt);
    const ir = await eventually(() => snapshots.at(-1)?.keys.find((k) => k.keyId === key.status.keyId) && snapshots.at(-1), 'key in the IR');
    expect(ir.keys.find((k) => k.keyId === key.status.keyId)).toMatchObject({ network: 'mainnet', perKeyRps: 50, enabled: true, scopes: ['data', 'streams'] });
  });

  it('applies spec edits to the row and records the new observedGeneration', async () => {
    const before = get('apikeys', 'backend')!;
    api.store.patch(api.type('apikeys'), ns, 'backend', { spec: { scopes: ['data'], allowedOrigins: ['https://shop.example.com'] } }, { manager: 'kubectl' });
    const key = await eventually(() => {
      const k = get('apikeys', 'backend');
      return k?.status?.observedGeneration === 2 && k.status.conditions[1].status === 'True' ? k : undefined;
    }, 'generation 2 reconciled');
    expect(key.metadata.generation).toBe(2);
    const row = await keyRow(before.status.keyId);
    expect(row).toMatchObject({ scopes: ['data'], allowed_origins: ['https://shop.example.com'], enabled: true });
    // The Ready condition did not change status, so its transition time stands.
    expect(key.status.conditions[0].lastTransitionTime).toBe(before.status.conditions[0].lastTransitionTime);
  });

  it('disables the key when the spec says enabled: false', async () => {
    const { status } = get('apikeys', 'backend')!;
    api.store.patch(api.type('apikeys'), ns, 'backend', { spec: { enabled: false } }, { manager: 'kubectl' });
    await ready('apikeys', 'backend', 'Disabled');
    expect(await keyRow(status.keyId)).toMatchObject({ enabled: false });
  });

  it('revokes the key when the ApiKey is deleted (finalizer), then lets it and its Secret go', async () => {
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'leaving' }, spec: { project: 'shop' } });
    const key = await ready('apikeys', 'leaving');
    expect((await keyRow(key.status.keyId))?.enabled).toBe(true);
    api.store.delete(api.type('apikeys'), ns, 'leaving');
    await eventually(() => get('apikeys', 'leaving') === undefined, 'resource deleted');
    expect((await keyRow(key.status.keyId))?.enabled).toBe(false);
    expect(get('secrets', 'leaving-apikey')).toBeUndefined();
  });

  it("a Secret written in another namespace naming this organization's key cannot take it over, nor revoke it", async () => {
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'victim' }, spec: { project: 'shop' } });
    const victim = await ready('apikeys', 'victim');
    const other = await createOrganization(db.database.db, systemClock, { name: 'Other', tier: 'growth', projects: [] });
    api.store.create(api.type('projects'), 'team-b', { metadata: { name: 'evil' }, spec: { organizationId: other.organization.id, network: 'mainnet' } });
    await eventually(() => get('projects', 'evil', 'team-b')?.status?.projectId, 'project evil');
    // Anyone who may write Secrets can label and annotate one as the operator does.
    api.store.create(api.type('secrets'), 'team-b', {
      metadata: { name: 'steal-apikey', labels: { 'app.kubernetes.io/managed-by': 'suigw-operator' }, annotations: { 'suigw.io/key-id': victim.status.keyId } },
      data: { apiKey: Buffer.from('svc_pat_x').toString('base64') },
    });
    api.store.create(api.type('apikeys'), 'team-b', { metadata: { name: 'steal' }, spec: { project: 'evil', allowedOrigins: ['https://evil.example'], rateLimit: { perKeyRps: 1 } } });
    // Not owned by the ApiKey, the Secret is not its to write.
    await eventually(() => (get('apikeys', 'steal', 'team-b')?.status?.conditions ?? []).find((c: KubeObject) => c.reason === 'SecretNameTaken'), 'steal refused');
    // Owner references are anyone's to write too: owned, the Secret is rewritten, with a key of steal's own.
    const stealUid = get('apikeys', 'steal', 'team-b')!.metadata.uid;
    api.store.patch(api.type('secrets'), 'team-b', 'steal-apikey', { metadata: { ownerReferences: [{ apiVersion: 'suigw.io/v1alpha1', kind: 'ApiKey', name: 'steal', uid: stealUid }] } }, { manager: 'kubectl' });
    const steal = await eventually(() => {
      const k = get('apikeys', 'steal', 'team-b');
      return k?.status?.keyId ? k : undefined;
    }, 'steal has its own key');
    expect(steal.status.keyId).not.toBe(victim.status.keyId);
    expect(await keyRow(victim.status.keyId)).toMatchObject({ enabled: true, allowed_origins: [], rate_limit: { perKeyRps: null, perIpRps: null }, organization_id: organizationId });
    api.store.delete(api.type('apikeys'), 'team-b', 'steal');
    await eventually(() => get('apikeys', 'steal', 'team-b') === undefined, 'steal deleted');
    expect((await keyRow(steal.status.keyId))?.enabled).toBe(false);
    expect((await keyRow(victim.status.keyId))?.enabled).toBe(true);
  });

  it('an ApiKey deleted after its Project (the only one naming its organization) still revokes its key', async () => {
    const lone = await createOrganization(db.database.db, systemClock, { name: 'Lone', tier: 'growth', projects: [] });
    api.store.create(api.type('projects'), 'team-c', { metadata: { name: 'only' }, spec: { organizationId: lone.organization.id, network: 'mainnet' } });
    await eventually(() => get('projects', 'only', 'team-c')?.status?.projectId, 'project only');
    api.store.create(api.type('apikeys'), 'team-c', { metadata: { name: 'orphan' }, spec: { project: 'only' } });
    const key = await eventually(() => {
      const k = get('apikeys', 'orphan', 'team-c');
      return k?.status?.keyId ? k : undefined;
    }, 'orphan has a key');
    api.store.delete(api.type('projects'), 'team-c', 'only');
    // A rebuild with the Project gone: the status keeps the key it records, which the deletion revokes.
    const notReady = await eventually(() => {
      const k = get('apikeys', 'orphan', 'team-c');
      return k?.status?.conditions?.find((c: KubeObject) => c.type === 'Ready')?.reason === 'ProjectNotReady' ? k : undefined;
    }, 'orphan ProjectNotReady');
    expect(notReady.status).toMatchObject({ keyId: key.status.keyId, secretName: 'orphan-apikey' });
    api.store.delete(api.type('apikeys'), 'team-c', 'orphan');
    await eventually(() => get('apikeys', 'orphan', 'team-c') === undefined, 'orphan deleted');
    expect((await keyRow(key.status.keyId))?.enabled).toBe(false);
  });

  it('an ApiKey whose Project and Secret are both gone still revokes the key its status records when deleted', async () => {
    const lone = await createOrganization(db.database.db, systemClock, { name: 'Alone', tier: 'growth', projects: [] });
    api.store.create(api.type('projects'), 'team-d', { metadata: { name: 'only' }, spec: { organizationId: lone.organization.id, network: 'mainnet' } });
    await eventually(() => get('projects', 'only', 'team-d')?.status?.projectId, 'project only');
    api.store.create(api.type('apikeys'), 'team-d', { metadata: { name: 'stray' }, spec: { project: 'only' } });
    const key = await eventually(() => {
      const k = get('apikeys', 'stray', 'team-d');
      return k?.status?.keyId ? k : undefined;
    }, 'stray has a key');
    api.store.delete(api.type('projects'), 'team-d', 'only');
    await eventually(() => get('apikeys', 'stray', 'team-d')?.status?.conditions?.find((c: KubeObject) => c.type === 'Ready')?.reason === 'ProjectNotReady', 'stray ProjectNotReady');
    api.store.delete(api.type('secrets'), 'team-d', 'stray-apikey');
    await operator.rebuild();
    expect(get('apikeys', 'stray', 'team-d')!.status).toMatchObject({ keyId: key.status.keyId, secretName: 'stray-apikey' });
    api.store.delete(api.type('apikeys'), 'team-d', 'stray');
    await eventually(() => get('apikeys', 'stray', 'team-d') === undefined, 'stray deleted');
    expect((await keyRow(key.status.keyId))?.enabled).toBe(false);
  });

  it("a row change the identity module refuses keeps the key and Secret in the status", async () => {
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'refused-edit' }, spec: { project: 'shop' } });
    const before = await ready('apikeys', 'refused-edit');
    api.store.patch(api.type('apikeys'), ns, 'refused-edit', { spec: { allowedOrigins: ['not an origin'] } }, { manager: 'kubectl' });
    const refused = await ready('apikeys', 'refused-edit', 'VALIDATION_FAILED');
    expect(refused.status).toMatchObject({ keyId: before.status.keyId, secretName: 'refused-edit-apikey' });
    api.store.delete(api.type('apikeys'), ns, 'refused-edit');
    await eventually(() => get('apikeys', 'refused-edit') === undefined, 'refused-edit deleted');
    expect((await keyRow(before.status.keyId))?.enabled).toBe(false);
  });

  it("two ApiKeys naming the same secretName: the second is refused (SecretNameTaken), and deleting it leaves the first's key alone", async () => {
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'first' }, spec: { project: 'shop', secretName: 'shared' } });
    const first = await ready('apikeys', 'first');
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'second' }, spec: { project: 'shop', secretName: 'shared', scopes: ['data', 'manage'] } });
    const second = await ready('apikeys', 'second', 'SecretNameTaken');
    expect(second.status.keyId).toBeUndefined();
    expect(await keyRow(first.status.keyId)).toMatchObject({ enabled: true, scopes: ['data'] });
    api.store.delete(api.type('apikeys'), ns, 'second');
    await eventually(() => get('apikeys', 'second') === undefined, 'second deleted');
    expect((await keyRow(first.status.keyId))?.enabled).toBe(true);
    expect(get('secrets', 'shared')!.metadata.annotations['suigw.io/key-id']).toBe(first.status.keyId);
  });

  it('a secretName naming a Secret the operator did not write (a TLS Secret): SecretNameTaken, no key, the Secret untouched', async () => {
    api.store.create(api.type('secrets'), ns, {
      type: 'kubernetes.io/tls',
      metadata: { name: 'web-tls', labels: { app: 'web' } },
      data: { 'tls.crt': Buffer.from('certificate').toString('base64'), 'tls.key': Buffer.from('private key').toString('base64') },
    }, 'cert-manager');
    const before = structuredClone(get('secrets', 'web-tls'));
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'clash' }, spec: { project: 'shop', secretName: 'web-tls' } });
    const clash = await ready('apikeys', 'clash', 'SecretNameTaken');
    expect(clash.status).toEqual({
      observedGeneration: 1,
      conditions: [
        { type: 'Ready', status: 'False', reason: 'SecretNameTaken', message: 'The Secret web-tls belongs to another resource; set another spec.secretName.', observedGeneration: 1, lastTransitionTime: expect.any(String) },
        { type: 'Reconciled', status: 'True', reason: 'Reconciled', message: '', observedGeneration: 1, lastTransitionTime: expect.any(String) },
      ],
    });
    expect(get('secrets', 'web-tls')).toEqual(before);
    expect(api.requests.filter((r) => r.method !== 'GET' && r.path.endsWith('/secrets/web-tls'))).toEqual([]);
    expect(await keyRowsNamed('clash')).toBe(0);
    // Another name: the key is made, and the TLS Secret stays as it was.
    api.store.patch(api.type('apikeys'), ns, 'clash', { spec: { secretName: 'clash-key' } }, { manager: 'kubectl' });
    const moved = await ready('apikeys', 'clash');
    expect(moved.status).toMatchObject({ secretName: 'clash-key', keyId: expect.stringMatching(/./) });
    expect(get('secrets', 'clash-key')!.metadata.annotations['suigw.io/key-id']).toBe(moved.status.keyId);
    expect(get('secrets', 'web-tls')).toEqual(before);
  });

  it("an API server error reading the key's Secret fails that ApiKey (no key made); the other tenants' resources go on", async () => {
    api.failReads((path) => path.endsWith('/namespaces/team-a/secrets/unreadable-apikey'));
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'unreadable' }, spec: { project: 'shop' } });
    const unreadable = await ready('apikeys', 'unreadable', 'INTERNAL_ERROR');
    expect(unreadable.status).toEqual({
      observedGeneration: 1,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'INTERNAL_ERROR',
          message: expect.stringMatching(/^The key's Secret team-a\/unreadable-apikey could not be read \([\s\S]*read failed by the test[\s\S]*\); no key was made\.$/),
          observedGeneration: 1,
          lastTransitionTime: expect.any(String),
        },
        { type: 'Reconciled', status: 'True', reason: 'Reconciled', message: '', observedGeneration: 1, lastTransitionTime: expect.any(String) },
      ],
    });
    expect(await keyRowsNamed('unreadable')).toBe(0);
    expect(get('secrets', 'unreadable-apikey')).toBeUndefined();
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'bystander' }, spec: { project: 'shop' } });
    const bystander = await ready('apikeys', 'bystander');
    expect((await keyRow(bystander.status.keyId))?.enabled).toBe(true);
  });

  it('a deleted Secret: the key whose value it held is revoked, and a new key and Secret are made', async () => {
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'lost' }, spec: { project: 'shop' } });
    const first = await ready('apikeys', 'lost');
    api.store.delete(api.type('secrets'), ns, 'lost-apikey');
    const second = await eventually(() => {
      const k = get('apikeys', 'lost');
      return k?.status?.keyId && k.status.keyId !== first.status.keyId ? k : undefined;
    }, 'a new key');
    expect((await keyRow(first.status.keyId))?.enabled).toBe(false);
    expect((await keyRow(second.status.keyId))?.enabled).toBe(true);
    expect(get('secrets', 'lost-apikey')!.metadata.annotations['suigw.io/key-id']).toBe(second.status.keyId);
  });

  it("an ApiKey whose Secret is refused gets its own failed status and no key; the other tenants' resources go on", async () => {
    api.refuseWrites((_method, path) => path.endsWith('/secrets/refused-apikey'));
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'refused' }, spec: { project: 'shop' } });
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'innocent' }, spec: { project: 'shop' } });
    const innocent = await ready('apikeys', 'innocent');
    expect((await keyRow(innocent.status.keyId))?.enabled).toBe(true);
    const refused = await ready('apikeys', 'refused', 'INTERNAL_ERROR');
    const condition = refused.status.conditions.find((c: KubeObject) => c.type === 'Ready');
    expect(condition.message).toMatch(/^The key's Secret team-a\/refused-apikey could not be written \([\s\S]*\); no key was made\.$/);
    // The write is tried as a dry run first: a refused one makes no key row, however often the
    // rebuilds try again (each made one more disabled row before).
    expect(await keyRowsNamed('refused')).toBe(0);
    await operator.rebuild();
    await operator.rebuild();
    expect(await keyRowsNamed('refused')).toBe(0);
    expect(get('secrets', 'refused-apikey')).toBeUndefined();
  });

  it('a Secret write refused after its dry run passed disables the key made for it', async () => {
    // The dry run passes, the real write is refused (a quota reached in between, say).
    api.refuseWrites((method, path, dryRun) => method === 'PATCH' && path.endsWith('/secrets/late-apikey') && !dryRun);
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'late' }, spec: { project: 'shop' } });
    const late = await ready('apikeys', 'late', 'INTERNAL_ERROR');
    const condition = late.status.conditions.find((c: KubeObject) => c.type === 'Ready');
    expect(condition.message).toMatch(/^The key's Secret team-a\/late-apikey could not be written \([\s\S]*\); the key made for it was disabled\.$/);
    const rows = await db.database.db.selectFrom('api_keys').select(['enabled']).where('name', '=', 'late').execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => !row.enabled)).toBe(true);
  });

  it("an xDS client's listener rejection stays on the statuses when it ACKs other resource types of that version", async () => {
    const envoyCondition = () => (get('apikeys', 'backend')?.status?.conditions ?? []).find((c: KubeObject) => c.type === 'EnvoyAccepted');
    // At once, as a client answers one snapshot: it refuses the listener and ACKs the routes and
    // clusters of the very same version.
    const version = operator.latest!.version;
    operator.reportEnvoy({ accepted: false, version, nodeId: 'envoy-1', kind: 'listener', message: 'ext_authz is not supported' });
    operator.reportEnvoy({ accepted: true, version, nodeId: 'envoy-1', kind: 'route' });
    operator.reportEnvoy({ accepted: true, version, nodeId: 'envoy-1', kind: 'cluster' });
    // A spec edit, reconciled: a rebuild has written statuses after those reports.
    const generation = get('apikeys', 'backend')!.metadata.generation;
    api.store.patch(api.type('apikeys'), ns, 'backend', { spec: { displayName: 'backend (edited)' } }, { manager: 'kubectl' });
    await eventually(() => get('apikeys', 'backend')?.status?.observedGeneration === generation + 1, 'the edit reconciled');
    expect(envoyCondition()).toMatchObject({ status: 'False', reason: 'Rejected', message: `envoy-1 rejected listener version ${version}: ext_authz is not supported` });
  });

  it('server-side applies the stream workers (replicas from load) and re-asserts drifted fields', async () => {
    api.store.create(api.type('warpstreams'), ns, { metadata: { name: 'swaps' }, spec: { project: 'shop', type: 'event', filter: '0x2::coin::CoinEvent', expectedEventsPerSecond: 1200 } });
    await ready('warpstreams', 'swaps');
    const deployment = await eventually(() => (get('deployments', 'suigw-streams-mainnet', 'suigw')?.spec.replicas === 3 ? get('deployments', 'suigw-streams-mainnet', 'suigw') : undefined), 'replicas 3');
    expect(deployment.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'suigw-operator', operation: 'Apply' })]);
    // Another manager edits replicas: the next rebuild takes the field back with a forced apply.
    api.store.patch(api.type('deployments'), 'suigw', 'suigw-streams-mainnet', { spec: { replicas: 7 } }, { manager: 'kubectl-edit' });
    await eventually(() => get('deployments', 'suigw-streams-mainnet', 'suigw')?.spec.replicas === 3, 'replicas restored');
  });

  it("deletes its stream workers of a network it no longer serves, once, and leaves a Deployment it did not make alone", async () => {
    const labels = { 'app.kubernetes.io/name': 'suigw', 'app.kubernetes.io/component': 'streams' };
    // What an operator serving testnet too wrote (this one serves mainnet only), under its field manager.
    api.store.create(api.type('deployments'), 'suigw', {
      metadata: { name: 'suigw-streams-testnet', labels: { ...labels, 'suigw.io/network': 'testnet', 'app.kubernetes.io/managed-by': 'suigw-operator' } },
      spec: { replicas: 1 },
    }, 'suigw-operator');
    // Someone else's Deployment under the same name pattern.
    api.store.create(api.type('deployments'), 'suigw', {
      metadata: { name: 'suigw-streams-devnet', labels: { ...labels, 'suigw.io/network': 'devnet', 'app.kubernetes.io/managed-by': 'Helm' } },
      spec: { replicas: 1 },
    }, 'helm');
    const devnet = structuredClone(get('deployments', 'suigw-streams-devnet', 'suigw'));
    await eventually(() => get('deployments', 'suigw-streams-testnet', 'suigw') === undefined, 'the testnet workers deleted');
    const deleted = () => api.requests.filter((r) => r.method === 'DELETE' && r.path.includes('/deployments/')).map((r) => r.path);
    // Until the informer's watch brings the deletion, a rebuild may send the DELETE again (a 404,
    // harmless); once it has, rebuilds delete nothing more.
    await eventually(async () => {
      const before = deleted().length;
      await operator.rebuild();
      return deleted().length === before || undefined;
    }, 'a rebuild that deletes nothing');
    expect(new Set(deleted())).toEqual(new Set(['/apis/apps/v1/namespaces/suigw/deployments/suigw-streams-testnet']));
    const settled = deleted().length;
    await operator.rebuild();
    expect(deleted()).toHaveLength(settled);
    expect(api.store.list(api.type('deployments'), 'suigw').map((o) => o.metadata.name).sort()).toEqual(['suigw-streams-devnet', 'suigw-streams-mainnet']);
    expect(get('deployments', 'suigw-streams-devnet', 'suigw')).toEqual(devnet);
  });

  it("server-side applies a billing CronJob per OnchainPlan in the operator's namespace, and deletes it with the plan", async () => {
    api.store.create(api.type('onchainplans'), ns, { metadata: { name: 'acme' }, spec: { organizationId, network: 'mainnet', tier: 'growth', billingDay: 31 } });
    const plan = await ready('onchainplans', 'acme');
    const name = 'suigw-billing-team-a-acme-9201d5e7e0';
    expect(plan.status.cronJob).toBe(name);
    const cronJob = await eventually(() => get('cronjobs', name, 'suigw'), 'cronjob');
    expect(cronJob.spec).toMatchObject({ schedule: '7 * * * *', suspend: false, concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 1800, jobTemplate: { spec: { activeDeadlineSeconds: 900 } } });
    expect(cronJob.metadata.labels).toMatchObject({ 'suigw.io/plan-namespace': 'team-a', 'suigw.io/plan': 'acme', 'app.kubernetes.io/managed-by': 'suigw-operator' });
    // An owner reference cannot name an object of another namespace: the operator deletes it.
    expect(cronJob.metadata.ownerReferences).toBeUndefined();
    expect(api.store.list(api.type('cronjobs'), ns)).toEqual([]);
    api.store.patch(api.type('onchainplans'), ns, 'acme', { spec: { suspend: true } }, { manager: 'kubectl' });
    await eventually(() => get('cronjobs', name, 'suigw')?.spec.suspend === true, 'suspended');
    api.store.delete(api.type('onchainplans'), ns, 'acme');
    await eventually(() => get('cronjobs', name, 'suigw') === undefined, 'cronjob deleted with its plan');
  });

  it('reports a refusal of the identity module in the Ready condition (the API\'s codes)', async () => {
    api.store.create(api.type('projects'), ns, { metadata: { name: 'shop-copy' }, spec: { organizationId, network: 'testnet', displayName: 'Shop' } });
    const project = await ready('projects', 'shop-copy', 'NetworkMismatch');
    expect(project.status.conditions[0]).toMatchObject({ status: 'False', message: expect.stringContaining('serves mainnet') });
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'bad' }, spec: { project: 'shop', scopes: ['root'] } });
    const bad = await ready('apikeys', 'bad', 'InvalidSpec');
    expect(bad.status.conditions[0].message).toContain('spec.scopes.0');
  });

  it('relists after 410 Gone (history compacted while the watches were down)', async () => {
    api.closeWatches();
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'after-gone' }, spec: { project: 'shop' } });
    api.store.compact();
    await ready('apikeys', 'after-gone');
    expect(api.goneAnswers).toBeGreaterThan(0);
  });

  it('restarts informers that stopped on other errors', async () => {
    api.failNext(12, 500);
    api.closeWatches();
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'after-errors' }, spec: { project: 'shop' } });
    await ready('apikeys', 'after-errors');
    expect(api.pendingFailures).toBe(0);
  });

  it('retries a status write that meets a 409 conflict, on a fresh read', async () => {
    let conflicts = 0;
    api.beforeNext(
      (method, path) => method === 'PUT' && path.endsWith('/apikeys/racing/status'),
      () => {
        conflicts += 1;
        api.store.patch(api.type('apikeys'), ns, 'racing', { metadata: { labels: { touched: 'yes' } } }, { manager: 'someone' });
      },
    );
    api.store.create(api.type('apikeys'), ns, { metadata: { name: 'racing' }, spec: { project: 'shop' } });
    const key = await ready('apikeys', 'racing');
    expect(conflicts).toBe(1);
    expect(key.metadata.labels).toEqual({ touched: 'yes' });
  });

  it('after a restart, deletes the CronJob of a plan deleted while no operator ran, and keeps the others, once', async () => {
    for (const plan of ['staying', 'leaving']) {
      api.store.create(api.type('onchainplans'), ns, { metadata: { name: plan }, spec: { organizationId, network: 'mainnet', tier: 'team', billingDay: 1 } });
      await ready('onchainplans', plan);
    }
    const names = () => api.store.list(api.type('cronjobs')).filter((o) => ['staying', 'leaving'].includes(o.metadata.labels['suigw.io/plan'])).map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
    await eventually(() => names().length === 2, 'two cronjobs');
    expect(names()).toEqual(['suigw/suigw-billing-team-a-leaving-027f335e3a', 'suigw/suigw-billing-team-a-staying-0ece95b5c2']);
    await operator.stop();
    api.store.delete(api.type('onchainplans'), ns, 'leaving');
    operator = testOperator(apiUrl, 'op-b', db.database, systemClock);
    await operator.start();
    await eventually(() => operator.isLeader, 'leadership after the restart');
    await eventually(() => names().length === 1, 'the orphan deleted');
    await operator.rebuild();
    expect(names()).toEqual(['suigw/suigw-billing-team-a-staying-0ece95b5c2']);
  });
});
