import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../services/core/index.js';
import { createOrganization } from '../../services/identity/index.js';
import type { KubeApiDouble } from '../support/kube-api-server/api-server.js';
import { eventually, startApiDouble, testOperator } from '../support/kube-api-server/harness.js';
import type { Operator } from '../../operator/runtime/operator.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const exec = promisify(execFile);
const KUBECTL = process.env['SUIGW_KUBECTL'] ?? 'kubectl';
const kubectlFound = await exec(KUBECTL, ['version', '--client']).then(
  () => true,
  () => false,
);

/**
 * The real kubectl (Debian's kubernetes-client or any on PATH; SUIGW_KUBECTL names another)
 * applies the sample resources to the API-server double and reads them back while the operator
 * reconciles them. Skipped only where no kubectl binary exists.
 */
describe.skipIf(!kubectlFound)('kubectl against the API double and the operator', () => {
  let db: TestDatabase;
  let api: KubeApiDouble;
  let operator: Operator;
  let dir: string;
  const kubectl = async (...args: string[]) => (await exec(KUBECTL, ['--kubeconfig', join(dir, 'kubeconfig'), ...args], { timeout: 30_000 })).stdout;

  beforeAll(async () => {
    db = await createTestDatabase();
    const { organization } = await createOrganization(db.database.db, systemClock, { name: 'Samples', tier: 'growth', projects: [] });
    const started = await startApiDouble();
    api = started.api;
    dir = mkdtempSync(join(tmpdir(), 'suigw-kubectl-'));
    writeFileSync(
      join(dir, 'kubeconfig'),
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{ name: double, cluster: { server: "${started.url}", insecure-skip-tls-verify: true } }]`,
        'users: [{ name: kubectl, user: { token: kubectl } }]',
        'contexts: [{ name: double, context: { cluster: double, user: kubectl, namespace: team-a } }]',
        'current-context: double',
      ].join('\n'),
    );
    // The samples name a placeholder organization; a platform team puts its own id there.
    const samples = join(import.meta.dirname, '..', '..', 'crds', 'samples');
    for (const file of readdirSync(samples)) {
      writeFileSync(join(dir, file), readFileSync(join(samples, file), 'utf8').replaceAll('org_01example', organization.id));
    }
    operator = testOperator(started.url, 'operator', db.database, systemClock);
    await operator.start();
  });

  afterAll(async () => {
    await operator?.stop();
    await api?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the samples (client-side apply: GET, then POST)', async () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    const out = await kubectl('apply', ...files.flatMap((f) => ['-f', join(dir, f)]));
    expect(out.trim().split('\n').sort()).toEqual([
      'apikey.suigw.io/shop-backend created',
      'onchainplan.suigw.io/acme-growth created',
      'project.suigw.io/shop created',
      'warpstream.suigw.io/coin-events created',
    ]);
  });

  it('`kubectl get apikeys` prints project, network, scopes, enabled, expiry and age once reconciled', async () => {
    await eventually(() => api.store.get(api.type('apikeys'), 'team-a', 'shop-backend').status?.expiresAt, 'key reconciled');
    const out = await kubectl('get', 'apikeys');
    const [header, row] = out.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'PROJECT', 'NETWORK', 'SCOPES', 'ENABLED', 'EXPIRY', 'AGE']);
    const cells = row!.split(/\s{2,}/);
    expect(cells.slice(0, 5)).toEqual(['shop-backend', 'shop', 'mainnet', 'data,streams', 'true']);
    expect(cells[5]).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('reads the status and the Secret named in it; the CR never holds the key value', async () => {
    const key = JSON.parse(await kubectl('get', 'apikey', 'shop-backend', '-o', 'json'));
    expect(key.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual(['Ready=True', 'Reconciled=True']);
    expect(JSON.stringify(key)).not.toContain('svc_pat_');
    const secret = JSON.parse(await kubectl('get', 'secret', key.status.secretName, '-o', 'json'));
    expect(Buffer.from(secret.data.apiKey, 'base64').toString()).toMatch(/^svc_pat_/);
  });

  it('server-side apply of an edit (PATCH application/apply-patch+yaml): conflict on a field kubectl owned before, then forced, reaches the key row', async () => {
    const edited = readFileSync(join(dir, 'apikey.yaml'), 'utf8').replace('scopes: [data, streams]', 'scopes: [data]');
    writeFileSync(join(dir, 'apikey.yaml'), edited);
    // The field belongs to the earlier client-side apply: server-side apply refuses to take it
    // silently (field ownership), and takes it when told to.
    await expect(kubectl('apply', '--server-side', '-f', join(dir, 'apikey.yaml'))).rejects.toThrow(/conflict with "kubectl-client-side-apply": \.spec\.scopes/);
    expect(await kubectl('apply', '--server-side', '--force-conflicts', '-f', join(dir, 'apikey.yaml'))).toContain('serverside-applied');
    const keyId = api.store.get(api.type('apikeys'), 'team-a', 'shop-backend').status.keyId;
    await eventually(async () => {
      const row = await db.database.db.selectFrom('api_keys').select('scopes').where('id', '=', keyId).executeTakeFirst();
      return row?.scopes.join(',') === 'data';
    }, 'scopes edited');
    // kubectl sends no bearer token over plain HTTP: its requests are the ones without one.
    const applies = api.requests.filter((r) => r.token === undefined && r.method === 'PATCH' && r.path.endsWith('/apikeys/shop-backend'));
    expect(applies.filter((r) => r.contentType === 'application/apply-patch+yaml').length).toBeGreaterThanOrEqual(2);
  });

  it('lists the workloads the operator applied', async () => {
    await eventually(() => api.store.list(api.type('cronjobs')).length === 1, 'cronjob');
    // The plan is in team-a; its billing CronJob in the operator's namespace, with the Secret and database its Jobs read.
    expect(await kubectl('get', 'cronjobs', '-o', 'name')).toBe('');
    expect(await kubectl('get', 'cronjobs', '-n', 'suigw', '-l', 'suigw.io/plan-namespace=team-a', '-o', 'name')).toBe('cronjob.batch/suigw-billing-team-a-acme-growth-2328f6fe13\n');
    expect(await kubectl('get', 'deployments', '-n', 'suigw', '-o', 'name')).toBe('deployment.apps/suigw-streams-mainnet\n');
  });
});
