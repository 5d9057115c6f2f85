import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startRedis, TEST_SECRET, type OwnedProcess } from '../support/processes.js';
import { createEmptyDatabase } from '../support/test-database.js';
import { runRole, startRole, type RoleProcess } from '../journeys/support/role-process.js';

/** One GET on a connection of its own (node:cluster hands each new connection to the next worker). */
function getOnNewConnection(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/**
 * `suigw gateway` with SUIGW_WORKERS=2 on PostgreSQL and Redis, started as an operator starts it:
 * two worker processes share the port, /metrics on the primary sums them, every request is
 * charged once in the shared ledger, a crashed worker is replaced, SIGTERM stops them all (exit 0).
 */
describe('a role on several workers (SUIGW_WORKERS)', () => {
  let database: Awaited<ReturnType<typeof createEmptyDatabase>> | undefined;
  let databaseUrl: string;
  let redis: OwnedProcess & { url: string };
  let simnet: RoleProcess;
  let gateway: RoleProcess;
  let env: Record<string, string>;
  let base: string;
  let metricsUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    database = await createEmptyDatabase('suigw_workers');
    databaseUrl = database.url;
    redis = await startRedis();
    const [simnetGrpcPort, simnetHttpPort, port, metricsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    simnet = await startRole('simnet', ['--grpc-port', String(simnetGrpcPort), '--http-port', String(simnetHttpPort), '--seed', 'workers'], {}, /faucet\s+(\S+)\/v2\/gas/);
    expect((await runRole('migrate', [], { DATABASE_URL: databaseUrl })).code).toBe(0);
    const created = await runRole('admin', ['create-org', '--name', 'Workers', '--tier', 'team', '--network', 'mainnet', '--key-days', '30'], { DATABASE_URL: databaseUrl });
    expect(created.code, created.stderr).toBe(0);
    apiKey = (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
    env = {
      DATABASE_URL: databaseUrl, REDIS_URL: redis.url, SUIGW_SECRET: TEST_SECRET, SUIGW_NETWORKS: 'mainnet', HOST: '127.0.0.1',
      SUI_MAINNET_GRPC_URL: `http://127.0.0.1:${simnetGrpcPort}`, SUI_MAINNET_GRAPHQL_URL: `http://127.0.0.1:${simnetHttpPort}/graphql`,
      PORT: String(port), SUIGW_METRICS_PORT: String(metricsPort), SUIGW_WORKERS: '2',
    };
    base = `http://127.0.0.1:${port}/mainnet`;
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    gateway = await startRole('gateway', [], env, /"msg":"gateway: 2 workers listening"/);
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop();
    await simnet?.stop();
    await redis?.stop();
    await database?.drop();
  });

  it('two workers answer on one port; /metrics counts every request of both; /v1/usage charges each once', async () => {
    expect(childrenOf(gateway.pid)).toHaveLength(2);
    const answers = [];
    for (let index = 0; index < 10; index += 1) answers.push(await getOnNewConnection(`${base}/v1/chain`, { 'x-api-key': apiKey }));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    // Connections alternate between the workers, so one worker alone would have counted 5.
    const sample = async (series: string) => {
      const text = await (await fetch(metricsUrl)).text();
      return Number(text.split('\n').find((line) => line.startsWith(`${series} `))?.split(' ')[1] ?? 0);
    };
    expect(await sample('suigw_requests_total{protocol="rest",route="/mainnet/v1/chain",method="GET",status="200"}')).toBe(10);
    // Each worker flushes its own charges to the shared ledger; both land, each once.
    await expect.poll(async () => {
      const usage = JSON.parse((await getOnNewConnection(`${base}/v1/usage`, { 'x-api-key': apiKey })).body) as { data: { routes: { route: string; requests: number; credits: number }[] } };
      return usage.data.routes.find((route) => route.route === 'GET /v1/chain');
    }, { timeout: 30_000, interval: 500 }).toMatchObject({ requests: 10, credits: 10 });
  }, 60_000);

  it('a worker that dies is replaced; the port keeps answering', async () => {
    const [victim] = childrenOf(gateway.pid);
    process.kill(victim!, 'SIGKILL');
    await expect.poll(() => {
      const children = childrenOf(gateway.pid);
      return children.length === 2 && !children.includes(victim!);
    }, { timeout: 60_000, interval: 200 }).toBe(true);
    // The replacement listens (its own "gateway listening" line: the third).
    await expect.poll(() => gateway.output().split('"msg":"gateway listening"').length - 1, { timeout: 60_000, interval: 200 }).toBe(3);
    for (let index = 0; index < 4; index += 1) expect((await getOnNewConnection(`${base}/v1/chain`, { 'x-api-key': apiKey })).status).toBe(200);
  }, 90_000);

  it('SIGTERM stops every worker and the role exits 0', async () => {
    const workers = childrenOf(gateway.pid);
    process.kill(gateway.pid, 'SIGTERM');
    expect(await gateway.exited).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);

  it('a port in use stops the role with exit 2 and one line (the first worker finds it; no others start)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const port = (taken.address() as AddressInfo).port;
    const result = await runRole('gateway', [], { ...env, PORT: String(port), SUIGW_METRICS_PORT: 'off' });
    taken.close();
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2, stderr: `suigw gateway: port ${port} is already in use: stop what listens there, or set PORT to another port\n`,
    });
  }, 60_000);

  it('more than one worker without Redis is refused: exit 2 and one line naming the setting', async () => {
    const { REDIS_URL: _redis, ...withoutRedis } = env;
    const refused = await runRole('gateway', [], { ...withoutRedis, REDIS_URL: '' });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      'suigw gateway: SUIGW_WORKERS=2 needs REDIS_URL: without it each worker would keep its own limits and credits. Set REDIS_URL, or SUIGW_WORKERS=1.',
    );
  }, 60_000);
});
