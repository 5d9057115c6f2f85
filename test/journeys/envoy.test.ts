import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBase58, toHex } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTITY_HEADERS } from '../../services/identity/index.js';
import { PLANS } from '../../services/plans/index.js';
import { freePort, startRedis, TEST_SECRET, type OwnedProcess } from '../support/processes.js';
import { createEmptyDatabase } from '../support/test-database.js';
import { EnvoyEdge, type EdgeRequest } from './support/envoy-edge.js';
import { runRole, startRole, type RoleProcess } from './support/role-process.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field

/** The free plan's organization rate in this deployment's plans file: one request a second. */
const FREE_ORG_RPS = 1;

/**
 * Journey 3: behind Envoy. `suigw authz`, `suigw ratelimit` and a `gateway` with
 * `SUIGW_TRUST_IDENTITY_HEADERS=true` as processes of their own (docs/envoy.md), on PostgreSQL and
 * Redis, with simnet as the network. The test is Envoy (EnvoyEdge: the real Check and
 * ShouldRateLimit requests with the headers Envoy sets, then the request forwarded with the
 * returned headers): the newcomer's REST and JSON-RPC calls pass, a disabled key is refused at
 * authz within the documented few seconds, a burst over the plan's organization rate is
 * OVER_LIMIT with the spec's 429, and the gateway answers a request around Envoy without a token,
 * or with a forged one, as it answers one without a key.
 */
describe('journey 3: behind Envoy, authz + ratelimit + a gateway trusting their identity', () => {
  let database: Awaited<ReturnType<typeof createEmptyDatabase>> | undefined;
  let plansDir: string;
  let redis: OwnedProcess & { url: string };
  const roles: RoleProcess[] = [];
  let edge: EnvoyEdge;
  let adminKey: string;
  let organizationId: string;
  let projectId: string;
  let freeKey: string;
  let requests = 0;
  const requestId = () => `journey3-${(requests += 1)}`;

  beforeAll(async () => {
    database = await createEmptyDatabase('suigw_journey');
    const databaseUrl = database.url;
    redis = await startRedis();
    // The deployment's own plans (SUIGW_PLANS_FILE, read by every role): a free plan slow enough
    // that a burst is over it whatever the machine's speed.
    plansDir = await mkdtemp(join(tmpdir(), 'suigw-journey3-'));
    const plans = Object.fromEntries(Object.entries(PLANS).map(([id, { id: _id, ...numbers }]) => [id, numbers]));
    const plansFile = join(plansDir, 'plans.json');
    await writeFile(plansFile, JSON.stringify({ version: 1, plans: { ...plans, free: { ...plans['free'], orgRps: FREE_ORG_RPS } } }));

    const [simnetGrpcPort, simnetHttpPort, authzPort, rlsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    roles.push(await startRole('simnet', ['--grpc-port', String(simnetGrpcPort), '--http-port', String(simnetHttpPort), '--seed', 'journey3'], {}, /faucet\s+(\S+)\/v2\/gas/));

    const env = {
      DATABASE_URL: databaseUrl, REDIS_URL: redis.url, SUIGW_SECRET: TEST_SECRET, SUIGW_NETWORKS: 'mainnet', HOST: '127.0.0.1',
      SUI_MAINNET_GRPC_URL: `http://127.0.0.1:${simnetGrpcPort}`, SUI_MAINNET_GRAPHQL_URL: `http://127.0.0.1:${simnetHttpPort}/graphql`,
      PORT: '0', SUIGW_METRICS_PORT: 'off', SUIGW_PLANS_FILE: plansFile,
    };
    const migrated = await runRole('migrate', [], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    const createOrg = async (tier: string) => {
      const created = await runRole('admin', ['create-org', '--name', `Journey ${tier}`, '--tier', tier, '--network', 'mainnet', '--key-days', '30'], env);
      expect(created.code, created.stderr).toBe(0);
      return JSON.parse(created.stdout) as { apiKey: string; organizationId: string; projectId: string };
    };
    ({ apiKey: adminKey, organizationId, projectId } = await createOrg('team'));
    freeKey = (await createOrg('free')).apiKey;

    const started = await Promise.all([
      startRole('authz', ['--port', String(authzPort)], env, /"msg":"authz \(ext_authz\) listening"/),
      startRole('ratelimit', ['--port', String(rlsPort)], env, /"msg":"ratelimit \(RLS\) listening"/),
      startRole('gateway', [], { ...env, SUIGW_TRUST_IDENTITY_HEADERS: 'true' }, /"address":"(http:\/\/[^"]+)"[^\n]*"msg":"gateway listening"/),
    ]);
    roles.push(...started);
    edge = new EnvoyEdge({ authz: `127.0.0.1:${authzPort}`, ratelimit: `127.0.0.1:${rlsPort}`, gateway: started[2]!.ready });
    // Five Node processes load the TypeScript CLI: generous on a machine busy with other work.
  }, 240_000);

  afterAll(async () => {
    edge?.close();
    await Promise.all(roles.map((role) => role.stop()));
    await redis?.stop();
    await database?.drop();
    if (plansDir) await rm(plansDir, { recursive: true, force: true });
  });

  const keyed = (key: string, id: string, extra: Record<string, string> = {}) => ({ 'x-api-key': key, 'x-request-id': id, ...extra });
  const jsonRpc = (key: string, id: string): EdgeRequest => ({
    method: 'POST', path: '/mainnet/v1/jsonrpc', headers: keyed(key, id, { 'content-type': 'application/json' }),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier' }),
  });

  it('the REST and JSON-RPC calls: authz signs the caller\'s identity, ratelimit admits, the gateway answers and charges', async () => {
    const rpc = await edge.send(jsonRpc(adminKey, 'journey3-rpc'));
    expect(rpc).toMatchObject({ by: 'gateway', status: 200, body: { jsonrpc: '2.0', id: 1, result: expect.stringMatching(/^[0-9a-f]{8}$/) } });
    const chainIdentifier = (rpc.body as Body).result as string;
    expect(rpc.headers).toMatchObject({ 'x-request-id': 'journey3-rpc', 'x-ratelimit-limit': String(PLANS.team.orgRps) });

    const id = requestId();
    const allowed = await edge.check({ path: '/mainnet/v1/chain', headers: keyed(adminKey, id) });
    const identity = Object.fromEntries((allowed.ok_response?.headers ?? []).map((option) => [option.header.key, option.header.value]));
    expect(identity).toMatchObject({
      [IDENTITY_HEADERS.token]: expect.stringMatching(/^[\w-]+\.[\w-]+$/), 'x-suigw-organization-id': organizationId, 'x-suigw-project-id': projectId,
      'x-suigw-network': 'mainnet', 'x-suigw-plan': 'team',
    });
    const rest = await edge.send({ path: '/mainnet/v1/chain', headers: keyed(adminKey, requestId()) });
    expect(rest).toMatchObject({ by: 'gateway', status: 200 });
    expect(rest.body).toEqual({
      data: {
        chainId: expect.any(String), latestCheckpoint: expect.stringMatching(/^\d+$/), networkTps: expect.any(Number),
        totalTransactions: expect.stringMatching(/^\d+$/), version: expect.stringMatching(/^\d+$/),
      },
    });
    // The same chain: JSON-RPC's identifier is the first four bytes of the genesis digest REST gives whole.
    expect(toHex(fromBase58((rest.body as Body).data.chainId as string).slice(0, 4))).toBe(chainIdentifier);
    // The credits of both calls (one each), as the gateway reports them on the next answer.
    const next = await edge.send({ path: '/mainnet/v1/chain', headers: keyed(adminKey, requestId()) });
    expect(next.headers['x-svc-credit-remaining']).toBe(String(PLANS.team.monthlyCredits - 3));
  });

  it('the gateway behind Envoy answers the signed identity alone, and a request without a token or with a forged one as one without a key', async () => {
    const id = requestId();
    const allowed = await edge.check({ path: '/mainnet/v1/chain', headers: keyed(adminKey, id) });
    const token = allowed.ok_response!.headers.find((option) => option.header.key === IDENTITY_HEADERS.token)!.header.value;
    // Trusted: the token stands for the caller, no key needed.
    expect(await edge.forward({ path: '/mainnet/v1/chain', headers: { 'x-request-id': id, [IDENTITY_HEADERS.token]: token } })).toMatchObject({ by: 'gateway', status: 200 });

    const refused = async (headers: Record<string, string>) => {
      const rid = requestId();
      return { answer: await edge.forward({ path: '/mainnet/v1/chain', headers: { 'x-request-id': rid, ...headers } }), rid };
    };
    const [claims, mac] = token.split('.') as [string, string];
    // Re-dated (the payload's second field is when authz issued it) under the original MAC.
    const fields = JSON.parse(Buffer.from(claims, 'base64url').toString()) as unknown[];
    fields[1] = Date.now() + 1;
    const forged = Buffer.from(JSON.stringify(fields)).toString('base64url');
    const attempts: Record<string, string>[] = [{}, { [IDENTITY_HEADERS.token]: `${forged}.${mac}` }, { [IDENTITY_HEADERS.token]: `${claims}.${'A'.repeat(mac.length)}` }];
    for (const headers of attempts) {
      const { answer, rid } = await refused(headers);
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: { error: 'Missing API key', requestId: rid } });
    }
  });

  it('a key disabled through Envoy is refused at authz within the documented few seconds (NOTIFY, else the key cache TTL)', async () => {
    const created = await edge.send({
      method: 'POST', path: '/mainnet/v1/keys', headers: keyed(adminKey, requestId(), { 'content-type': 'application/json' }),
      body: JSON.stringify({ name: 'app', projectId, scopes: ['data'] }),
    });
    expect(created).toMatchObject({ by: 'gateway', status: 201 });
    const { id, apiKey } = (created.body as Body).data as { id: string; apiKey: string };
    // Cached as valid at authz first, so that what follows is the cache's invalidation.
    expect(await edge.send(jsonRpc(apiKey, requestId()))).toMatchObject({ by: 'gateway', status: 200 });

    const disabled = await edge.send({ method: 'DELETE', path: `/mainnet/v1/keys/${id}`, headers: keyed(adminKey, requestId()) });
    expect({ status: disabled.status, body: disabled.body }).toEqual({ status: 200, body: { data: { id, enabled: false } } });
    await expect.poll(async () => (await edge.check({ path: '/mainnet/v1/chain', headers: keyed(apiKey, 'journey3-disabled') })).denied_response?.status.code, { timeout: 5_000, interval: 100 }).toBe(401);
    const answer = await edge.send(jsonRpc(apiKey, 'journey3-disabled'));
    expect({ by: answer.by, status: answer.status, body: answer.body }).toEqual({
      by: 'authz', status: 401, body: { error: 'Invalid API key', message: 'This API key has been disabled.', requestId: 'journey3-disabled' },
    });
  });

  it(`a burst over the plan's organization rate (${FREE_ORG_RPS} a second): ratelimit answers OVER_LIMIT with the spec's 429, the rest pass`, async () => {
    // Ten requests at once: outcomes counted, never timed. One second's bucket admits one; a
    // loaded machine refills it a few times at most while the burst is answered.
    const ids = Array.from({ length: 10 }, () => requestId());
    const answers = await Promise.all(ids.map((id) => edge.send(jsonRpc(freeKey, id))));
    const passed = answers.filter((answer) => answer.by === 'gateway');
    const limited = answers.filter((answer) => answer.by === 'ratelimit');
    expect(passed.length + limited.length).toBe(10);
    expect(passed.length).toBeGreaterThanOrEqual(1);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    for (const answer of passed) expect(answer.status).toBe(200);
    for (const answer of limited) {
      const id = answer.headers['x-request-id']!;
      expect(ids).toContain(id);
      expect({ status: answer.status, body: answer.body, retryAfter: answer.headers['retry-after'], limit: answer.headers['x-ratelimit-limit'] }).toEqual({
        status: 429, body: { error: 'Organization rate limit exceeded', retryAfter: 1, requestId: id }, retryAfter: '1', limit: String(FREE_ORG_RPS),
      });
    }
  });
});
