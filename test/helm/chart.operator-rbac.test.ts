import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Operator } from '../../operator/runtime/operator.js';
import { systemClock } from '../../services/core/index.js';
import { createOrganization } from '../../services/identity/index.js';
import type { KubeApiDouble } from '../support/kube-api-server/api-server.js';
import { eventually, startApiDouble, testOperator } from '../support/kube-api-server/harness.js';
import type { KubeObject } from '../support/kube-api-server/object-store.js';
import { CHART_DIR, helm } from '../support/helm.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * The operator's requests, as it makes them against the API-server double (which has no
 * authorization), held against the RBAC the chart gives its ServiceAccount, evaluated as the API
 * server does: a Role grants in its own namespace only, a ClusterRole (bound cluster-wide) in
 * every namespace and at the cluster scope. Resources in a team's namespace, as
 * docs/kubernetes.md and crds/samples/ put them.
 */
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface Grant {
  namespace: string | undefined;
  rules: Rule[];
}
interface Access {
  verb: string;
  group: string;
  resource: string;
  namespace: string | undefined;
}

const RELEASE_NAMESPACE = 'suigw';
const TEAM = 'team-a';

/** `/api/v1/namespaces/ns/secrets/name` → get secrets in ns; `/apis/g/v/apikeys` → list apikeys at the cluster scope. */
function access(method: string, path: string): Access | undefined {
  const parts = path.split('/').filter(Boolean);
  let rest: string[];
  let group: string;
  if (parts[0] === 'api' && parts.length > 2) [group, rest] = ['', parts.slice(2)];
  else if (parts[0] === 'apis' && parts.length > 3) [group, rest] = [parts[1]!, parts.slice(3)];
  else return undefined; // discovery and /openapi: every authenticated client may read them
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 2) [namespace, rest] = [rest[1], rest.slice(2)];
  const [plural, name, sub] = rest;
  const verb = { GET: name ? 'get' : 'list', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method]!;
  return { verb, group, resource: sub ? `${plural}/${sub}` : plural!, namespace };
}

function allowed(grants: Grant[], request: Access): boolean {
  return grants.some(
    (grant) =>
      (grant.namespace === undefined || grant.namespace === request.namespace) &&
      grant.rules.some((rule) => rule.apiGroups.includes(request.group) && rule.resources.includes(request.resource) && rule.verbs.includes(request.verb)),
  );
}

/** What the chart binds to the operator's ServiceAccount. */
function grantsOf(objects: KubeObject[], serviceAccount: string): Grant[] {
  const bindings = objects.filter(
    (o) => (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') && o.subjects.some((s: KubeObject) => s.kind === 'ServiceAccount' && s.name === serviceAccount && s.namespace === RELEASE_NAMESPACE),
  );
  return bindings.map((binding) => {
    const role = objects.find((o) => o.kind === binding.roleRef.kind && o.metadata.name === binding.roleRef.name)!;
    // A RoleBinding grants in its own namespace, even when it names a ClusterRole.
    return { namespace: binding.kind === 'RoleBinding' ? RELEASE_NAMESPACE : undefined, rules: role.rules };
  });
}

describe("the chart's RBAC against the operator's own requests", () => {
  let db: TestDatabase;
  let api: KubeApiDouble;
  let operator: Operator;
  let grants: Grant[];

  beforeAll(async () => {
    const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', RELEASE_NAMESPACE]);
    const objects = parseAllDocuments(stdout).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
    const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'suigw-operator')!;
    grants = grantsOf(objects, deployment.spec.template.spec.serviceAccountName);
    db = await createTestDatabase();
    const started = await startApiDouble();
    api = started.api;
    operator = testOperator(started.url, 'op-a', db.database, systemClock);
    await operator.start();
    await eventually(() => operator.isLeader, 'leadership');
  }, 120_000);

  afterAll(async () => {
    await operator?.stop();
    await api?.close();
    await db?.drop();
  });

  it('grants every request the operator makes to reconcile the samples in a team namespace', async () => {
    const { organization } = await createOrganization(db.database.db, systemClock, { name: 'Acme', tier: 'growth', projects: [] });
    const ready = (plural: string, name: string) =>
      eventually(() => {
        const object = api.store.list(api.type(plural)).find((o) => o.metadata.namespace === TEAM && o.metadata.name === name);
        return (object?.status?.conditions ?? []).some((c: KubeObject) => c.type === 'Ready' && c.status === 'True');
      }, `${plural}/${name} ready`);
    api.store.create(api.type('projects'), TEAM, { metadata: { name: 'shop' }, spec: { organizationId: organization.id, network: 'mainnet' } });
    await ready('projects', 'shop');
    api.store.create(api.type('apikeys'), TEAM, { metadata: { name: 'shop-backend' }, spec: { project: 'shop', scopes: ['data', 'streams'] } });
    api.store.create(api.type('warpstreams'), TEAM, { metadata: { name: 'coin-events' }, spec: { project: 'shop', type: 'event', filter: '0x2::coin::CoinEvent', expectedEventsPerSecond: 200 } });
    api.store.create(api.type('onchainplans'), TEAM, { metadata: { name: 'acme-growth' }, spec: { organizationId: organization.id, network: 'mainnet', tier: 'growth', billingDay: 31 } });
    await ready('apikeys', 'shop-backend');
    await ready('warpstreams', 'coin-events');
    await ready('onchainplans', 'acme-growth');
    // The plan's billing CronJob is in the release's namespace (where the chart's Secret, database
    // and NetworkPolicies are), and goes with the plan.
    const cronJobs = () => api.store.list(api.type('cronjobs')).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    await eventually(() => cronJobs().length > 0, 'cronjob applied');
    expect(cronJobs()).toEqual([`${RELEASE_NAMESPACE}/suigw-billing-team-a-acme-growth-2328f6fe13`]);
    api.store.delete(api.type('apikeys'), TEAM, 'shop-backend');
    await eventually(() => !api.store.list(api.type('apikeys')).some((o) => o.metadata.name === 'shop-backend'), 'apikey deleted');
    api.store.delete(api.type('onchainplans'), TEAM, 'acme-growth');
    await eventually(() => cronJobs().length === 0, 'cronjob deleted with its plan');

    const requests = api.requests.map((r) => access(r.method, r.path)).filter((r): r is Access => r !== undefined);
    const kinds = new Set(requests.map((r) => `${r.verb} ${r.resource}`));
    // The journey exercised the operator's reads and writes of every kind it touches.
    expect([...kinds].filter((k) => /^(list|create|update|patch) (apikeys|secrets|deployments|cronjobs|leases|apikeys\/status)$/.test(k)).length).toBeGreaterThanOrEqual(8);
    expect([...kinds].filter((k) => k.endsWith(' cronjobs')).sort()).toEqual(['delete cronjobs', 'list cronjobs', 'patch cronjobs']);
    const refused = [...new Set(requests.filter((r) => !allowed(grants, r)).map((r) => `${r.verb} ${r.group || 'core'}/${r.resource} ${r.namespace ? `in ${r.namespace}` : 'at the cluster scope'}`))];
    expect(refused).toEqual([]);

    // Secrets are the teams' credentials: granted in every namespace, so no verb beyond what the
    // operator uses. Its key Secrets are server-side applied (a patch, and a create when none
    // exists yet) and removed by the garbage collector with their ApiKey; it reads one by name
    // (is the name free) and watches its own (a list, then a watch: both GETs on the collection).
    const secretVerbs = new Set(requests.filter((r) => r.resource === 'secrets').map((r) => r.verb));
    expect([...secretVerbs].sort()).toEqual(['get', 'list', 'patch']);
    const granted = grants.flatMap((grant) => grant.rules).filter((rule) => rule.resources.includes('secrets')).flatMap((rule) => rule.verbs);
    expect(granted.sort()).toEqual([...secretVerbs, 'create', 'watch'].sort());
  });
});
