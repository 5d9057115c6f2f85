import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentials, type Client } from '@grpc/grpc-js';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { CheckResponse, RateLimitResponse } from '../../services/envoy/index.js';
import { authorizationService, rateLimitService } from '../support/envoy-protos.js';
import { operatorUsage } from '../../services/cli/operator.js';
import { IDENTITY_HEADERS } from '../../services/identity/index.js';
import { openAddressSocket } from '../journeys/support/sdk-flows.js';
import { unary } from '../support/envoy-stack.js';
import { CHART_DIR, helm } from '../support/helm.js';
import type { KubeApiDouble } from '../support/kube-api-server/api-server.js';
import { startApiDouble } from '../support/kube-api-server/harness.js';
import { freePort, TEST_SECRET } from '../support/processes.js';
import { POD_HEAP } from '../support/pod-heap.js';
import { createEmptyDatabase } from '../support/test-database.js';
import { buildImage, IMAGE, podman, runContainer, startContainer, type Container } from './support/image-container.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field

interface PodSpec { containers?: { image: string; args?: string[] }[]; initContainers?: { image: string; args?: string[] }[] }

/**
 * The container image (issue 21): `make image` builds it (podman here, the base image made
 * locally), and every role runs from it as the chart runs it (uid 10001, read-only root file
 * system, host network) against this machine's PostgreSQL and Redis: migrate, admin, simnet,
 * gateway, grpc, streams, authz, ratelimit, operator. Each answers as it does from source, and
 * each stops on SIGTERM with exit code 0 and its usage written.
 */
describe('the suigw image', () => {
  const redisPrefix = `image-test:${randomBytes(6).toString('hex')}:`;
  let database: { url: string; drop(): Promise<void> };
  let databaseUrl: string;
  const containers: Record<string, Container> = {};
  let adminKey: string;
  let keyId: string;
  let faucetUrl: string;
  let simnetChainId: string;
  let gateway: string;
  let grpcHost: string;
  let streams: string;
  let authz: Client;
  let rls: Client;
  let roleEnv: Record<string, string>;
  let kubeApi: KubeApiDouble;
  let kubeDir: string;

  beforeAll(async () => {
    // Most of a first build is `npm ci` twice and tsc; podman's layer cache makes later runs quick.
    await buildImage();
    database = await createEmptyDatabase('suigw_image');
    databaseUrl = database.url;

    const migrated = await runContainer('migrate', [], { DATABASE_URL: databaseUrl });
    expect(migrated.code, migrated.stderr).toBe(0);
    const created = await runContainer('admin', ['create-org', '--name', 'Image', '--tier', 'team', '--network', 'mainnet', '--key-days', '30'], { DATABASE_URL: databaseUrl });
    expect(created.code, created.stderr).toBe(0);
    ({ apiKey: adminKey, keyId } = JSON.parse(created.stdout) as { apiKey: string; keyId: string });

    const [simnetGrpcPort, simnetHttpPort, gatewayPort, grpcPort, streamsPort, authzPort, rlsPort] = await Promise.all(Array.from({ length: 7 }, () => freePort()));
    containers.simnet = await startContainer('simnet', ['--grpc-port', String(simnetGrpcPort), '--http-port', String(simnetHttpPort), '--seed', 'image'], {}, /faucet\s+(\S+)\/v2\/gas/);
    faucetUrl = containers.simnet.ready;
    simnetChainId = /simnet chain id (\S+)/.exec(containers.simnet.output())![1]!;
    roleEnv = {
      DATABASE_URL: databaseUrl, REDIS_URL: 'redis://127.0.0.1:6379', SUIGW_REDIS_KEY_PREFIX: redisPrefix, SUIGW_SECRET: TEST_SECRET,
      SUIGW_NETWORKS: 'mainnet', HOST: '127.0.0.1', SUIGW_METRICS_PORT: 'off',
      SUI_MAINNET_GRPC_URL: `http://127.0.0.1:${simnetGrpcPort}`, SUI_MAINNET_GRAPHQL_URL: `http://127.0.0.1:${simnetHttpPort}/graphql`,
      // The longest flush interval allowed: usage written at all by the test's end was written by
      // the SIGTERM shutdown's final flush, which is what "no usage lost" means.
      SUIGW_USAGE_FLUSH_MS: '60000',
    };
    const listening = (msg: string) => new RegExp(`"address":"(http://[^"]+)"[^\\n]*"msg":"${msg}"`);
    const [gatewayC, grpcC, streamsC, authzC, rlsC] = await Promise.all([
      startContainer('gateway', [], { ...roleEnv, PORT: String(gatewayPort) }, listening('gateway listening')),
      startContainer('grpc', [], { ...roleEnv, SUIGW_GRPC_PORT: String(grpcPort) }, /"msg":"grpc proxy listening"/),
      startContainer('streams', [], { ...roleEnv, PORT: String(streamsPort) }, listening('streams listening')),
      startContainer('authz', ['--port', String(authzPort)], roleEnv, /"msg":"authz \(ext_authz\) listening"/),
      startContainer('ratelimit', ['--port', String(rlsPort)], roleEnv, /"msg":"ratelimit \(RLS\) listening"/),
    ]);
    Object.assign(containers, { gateway: gatewayC, grpc: grpcC, streams: streamsC, authz: authzC, ratelimit: rlsC });
    // The operator against the Kubernetes API double (test/support/kube-api-server), its
    // kubeconfig mounted read-only where the container's uid can read it.
    const double = await startApiDouble();
    kubeApi = double.api;
    kubeDir = mkdtempSync(join(tmpdir(), 'suigw-image-kube-'));
    chmodSync(kubeDir, 0o755);
    writeFileSync(join(kubeDir, 'kubeconfig'), [
      'apiVersion: v1', 'kind: Config',
      `clusters: [{ name: double, cluster: { server: "${double.url}", insecure-skip-tls-verify: true } }]`,
      'users: [{ name: operator, user: { token: operator } }]',
      'contexts: [{ name: double, context: { cluster: double, user: operator } }]',
      'current-context: double',
    ].join('\n'), { mode: 0o644 });
    containers.operator = await startContainer('operator', ['--xds-port', String(await freePort())], { ...roleEnv, KUBECONFIG: '/kube/kubeconfig', SUIGW_OPERATOR_NAMESPACE: 'suigw' }, /"msg":"operator started"/, ['--volume', `${kubeDir}:/kube:ro`]);
    gateway = gatewayC.ready;
    grpcHost = `127.0.0.1:${grpcPort}`;
    streams = streamsC.ready;
    authz = new (authorizationService())(`127.0.0.1:${authzPort}`, credentials.createInsecure());
    rls = new (rateLimitService())(`127.0.0.1:${rlsPort}`, credentials.createInsecure());
  }, 1_800_000);

  afterAll(async () => {
    authz?.close();
    rls?.close();
    await Promise.all(Object.values(containers).map((container) => container.remove()));
    await kubeApi?.close();
    if (kubeDir) rmSync(kubeDir, { recursive: true, force: true });
    await database?.drop();
  }, 120_000);

  const call = (method: string, path: string, body?: unknown) => fetch(`${gateway}${path}`, {
    method, headers: { 'x-api-key': adminKey, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  }).then(async (response) => ({ status: response.status, body: (await response.text().then((t) => (t ? JSON.parse(t) : undefined))) as Body }));

  it('is built as the chart expects: node as the entry point, uid 10001, OCI labels with the version', async () => {
    const [inspected] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as { Config: { User: string; Entrypoint: string[]; Labels: Record<string, string> } }[];
    expect(inspected!.Config.User).toBe('10001:10001');
    expect(inspected!.Config.Entrypoint).toEqual(['node', '/app/dist/services/cli/suigw.js']);
    expect(inspected!.Config.Labels['org.opencontainers.image.title']).toBe('suigw');
    expect(inspected!.Config.Labels['org.opencontainers.image.version']).toBe(IMAGE.split(':').at(-1));
    // Production dependencies only: no test runner, linter, source runner or compiler in the image.
    const listed = await runContainerShell('for p in vitest eslint tsx typescript .bin/tsc; do test -e /app/node_modules/$p && echo "$p present"; done; ls /app/dist/services/cli/suigw.js');
    expect(listed).toBe('/app/dist/services/cli/suigw.js\n');
  });

  it("gives Node, in a container with the chart's memory limit for authz and ratelimit, the heap the benchmark runs them with", async () => {
    // After some garbage the young generation is at its largest: the semi-spaces' limit shows.
    const probe = `const v8 = require('v8'); let kept = 0; for (let i = 0; i < 300; i++) kept += new Array(100000).fill(i).length;
      const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      console.log(JSON.stringify({ heapLimitMiB: v8.getHeapStatistics().heap_size_limit / 2 ** 20, newSpaceMiB: space.space_size / 2 ** 20 }));`;
    const memory = `${Number.parseInt(POD_HEAP.memoryLimit, 10)}m`;
    expect(POD_HEAP.memoryLimit).toBe(`${Number.parseInt(POD_HEAP.memoryLimit, 10)}Mi`);
    const inPod = JSON.parse(await podman(['run', '--rm', '--network=host', '--memory', memory, '--entrypoint', 'node', IMAGE, '-e', probe])) as unknown;
    const { stdout } = await promisify(execFile)(process.execPath, [...POD_HEAP.nodeFlags, '-e', probe]);
    expect(JSON.parse(stdout)).toEqual(inPod);
  });

  it('operator --help prints its usage and exits 0', async () => {
    const help = await runContainer('operator', ['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toBe(`${operatorUsage()}\n`);
  });

  it('gateway: /health, and a REST call with the API key', async () => {
    // Upstream probes run in the background: `ok` once the first one has reached simnet.
    await expect.poll(async () => {
      const health = await fetch(`${gateway}/health`);
      const body = (await health.json()) as { status: string; database: string };
      return [health.status, body.status, body.database];
    }, { timeout: 15_000 }).toEqual([200, 'ok', 'ok']);
    const latest = await call('GET', '/mainnet/v1/checkpoints/latest');
    expect(latest.status).toBe(200);
    expect(Number(latest.body.data.sequenceNumber)).toBeGreaterThanOrEqual(0);
  });

  it('grpc: a Sui v2 call with the API key', async () => {
    const grpc = new SuiGrpcClient({ network: 'mainnet', transport: new GrpcTransport({ host: grpcHost, channelCredentials: credentials.createInsecure(), meta: { 'x-api-key': adminKey } }) });
    const info = await grpc.ledgerService.getServiceInfo({}).response;
    expect(info.chainId).toBe(simnetChainId);
  });

  it('authz allows a request with the API key; ratelimit admits on the identity authz signed', async () => {
    const allowed = await unary<CheckResponse>(authz, 'Check', {
      attributes: { request: { http: { method: 'GET', path: '/mainnet/v1/checkpoints/latest', host: 'localhost', headers: { host: 'localhost', 'x-api-key': adminKey, 'x-request-id': 'image-1' } } } },
    });
    const token = allowed.ok_response!.headers.find((option) => option.header.key === IDENTITY_HEADERS.token)!.header.value;
    const admitted = await unary<RateLimitResponse>(rls, 'ShouldRateLimit', {
      domain: 'suigw', descriptors: [{ entries: [{ key: 'identity', value: token }, { key: 'remote_address', value: '10.1.1.1' }] }],
    });
    expect(admitted.overall_code).toBe(1);
  });

  it('streams: a Warp stream delivers the faucet transfer to its address', async () => {
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const stream = await call('POST', '/mainnet/v1/streams', { name: 'image', type: 'address', filters: { addresses: [recipient] } });
    expect(stream.status).toBe(201);
    const socket = await openAddressSocket(`${streams.replace(/^http/, 'ws')}/mainnet/v1/warp/${stream.body.data.id}/ws?mode=resume`, adminKey);
    const sent = await requestSuiFromFaucetV2({ host: faucetUrl, recipient });
    expect(sent.status).toBe('Success');
    await expect.poll(() => socket.digests, { timeout: 30_000 }).toEqual(sent.coins_sent!.map((coin) => coin.transferTxDigest));
    socket.close();
  });

  it('operator: takes its Lease in the Kubernetes API with the mounted kubeconfig', async () => {
    const leasePath = '/apis/coordination.k8s.io/v1/namespaces/suigw/leases';
    await expect.poll(() => kubeApi.requests.some((request) => request.token === 'operator' && request.method === 'POST' && request.path.startsWith(leasePath)), { timeout: 15_000 }).toBe(true);
  });

  it('billing (what the operator\'s OnchainPlan CronJobs run): one pass over an empty ledger, exit 0', async () => {
    const pass = await runContainer('billing', [], { ...roleEnv, SUIGW_BILLING_OUTBOX: '/tmp/billing-outbox.jsonl' });
    expect(pass.code, pass.stderr).toBe(0);
    expect(JSON.parse(pass.stdout.trim().split('\n').at(-1)!)).toEqual({ cancelled: 0, charged: 0, declined: 0, emailsFailed: 0, emailsSent: 0, ended: 0, failed: 0, reminders: 0, unavailable: 0 });
  });

  it('SIGTERM: every role exits 0 and the gateway writes the usage it counted before stopping', async () => {
    for (let i = 0; i < 3; i += 1) expect((await call('GET', '/mainnet/v1/chain')).status).toBe(200);
    const codes = Object.fromEntries(await Promise.all(Object.entries(containers).map(async ([role, container]) => [role, await container.terminate()] as const)));
    expect(codes).toEqual({ simnet: 0, gateway: 0, grpc: 0, streams: 0, authz: 0, ratelimit: 0, operator: 0 });
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ requests: string }>(`SELECT sum(requests)::text AS requests FROM usage_minutes WHERE key_id = $1 AND route = 'GET /v1/chain'`, [keyId]);
      expect(rows).toEqual([{ requests: '3' }]);
    } finally {
      await db.end();
    }
  }, 60_000);

  it('every container the chart renders with the suigw image runs a role the image knows', async () => {
    const help = await runContainer('--help', []);
    expect(help.code).toBe(0);
    const roles = new Set([...help.stdout.matchAll(/^ {2}(\w+) /gm)].map((match) => match[1]));
    const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw']);
    const specs = parseAllDocuments(stdout)
      .map((document) => document.toJS() as { spec?: { template?: { spec?: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } } } | null)
      .map((object) => object?.spec?.template?.spec ?? object?.spec?.jobTemplate?.spec.template.spec)
      .filter((spec): spec is PodSpec => spec !== undefined);
    const commands = specs.flatMap((spec) => [...(spec.containers ?? []), ...(spec.initContainers ?? [])]).filter((container) => container.image === IMAGE);
    // The chart's default image is the one `make image` built.
    expect(commands.map((container) => container.args![0]).sort()).toEqual(['authz', 'billing', 'gateway', 'grpc', 'migrate', 'operator', 'ratelimit', 'streams']);
    for (const container of commands) expect(roles).toContain(container.args![0]);
  });
});

/** A shell command inside the image (its entry point replaced): what the image contains. */
async function runContainerShell(command: string): Promise<string> {
  return podman(['run', '--rm', '--network=host', '--entrypoint', '/bin/sh', IMAGE, '-c', command]);
}
