import { credentials } from '@grpc/grpc-js';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { JsonRpcHTTPTransport, SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startRedis, TEST_SECRET, type OwnedProcess } from '../support/processes.js';
import { createEmptyDatabase } from '../support/test-database.js';
import { runRole, startRole, type RoleProcess } from './support/role-process.js';
import { openAddressSocket, transfer } from './support/sdk-flows.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field


/**
 * Journey 2: the production layout, every role a process of its own as docs/architecture.md lays
 * them out: `suigw migrate` on an empty PostgreSQL database, an organization made with
 * `suigw admin create-org`, two `gateway` replicas, `grpc`, `streams` and `simnet` sharing
 * PostgreSQL and Redis. The same SDK flows through both gateways and the gRPC proxy, a stream on
 * the streams process receiving them, and a key disabled on one gateway refused by the other and
 * by the gRPC proxy within the documented few seconds.
 */
describe('journey 2: the production layout on PostgreSQL and Redis', () => {
  let database: Awaited<ReturnType<typeof createEmptyDatabase>> | undefined;
  let databaseUrl: string;
  let redis: OwnedProcess & { url: string };
  const roles: RoleProcess[] = [];
  let simnet: { grpcUrl: string; graphqlUrl: string; faucetUrl: string };
  let gatewayA: string;
  let gatewayB: string;
  let grpcHost: string;
  let streamsUrl: string;
  let adminKey: string;
  let projectId: string;

  beforeAll(async () => {
    database = await createEmptyDatabase('suigw_journey');
    databaseUrl = database.url;
    redis = await startRedis();

    const [simnetGrpcPort, simnetHttpPort, grpcPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const simnetProcess = await startRole('simnet', ['--grpc-port', String(simnetGrpcPort), '--http-port', String(simnetHttpPort), '--seed', 'journey'], {}, /faucet\s+(\S+)\/v2\/gas/);
    roles.push(simnetProcess);
    simnet = { grpcUrl: `http://127.0.0.1:${simnetGrpcPort}`, graphqlUrl: `http://127.0.0.1:${simnetHttpPort}/graphql`, faucetUrl: simnetProcess.ready };

    const migrated = await runRole('migrate', [], { DATABASE_URL: databaseUrl });
    expect(migrated.code, migrated.stderr).toBe(0);
    const created = await runRole('admin', ['create-org', '--name', 'Journey', '--tier', 'team', '--network', 'mainnet', '--key-days', '30'], { DATABASE_URL: databaseUrl });
    expect(created.code, created.stderr).toBe(0);
    ({ apiKey: adminKey, projectId } = JSON.parse(created.stdout) as { apiKey: string; projectId: string });

    const env = {
      DATABASE_URL: databaseUrl, REDIS_URL: redis.url, SUIGW_SECRET: TEST_SECRET, SUIGW_NETWORKS: 'mainnet', HOST: '127.0.0.1',
      SUI_MAINNET_GRPC_URL: simnet.grpcUrl, SUI_MAINNET_GRAPHQL_URL: simnet.graphqlUrl, PORT: '0', SUIGW_METRICS_PORT: 'off',
    };
    const listening = (msg: string) => new RegExp(`"address":"(http://[^"]+)"[^\\n]*"msg":"${msg}"`);
    const started = await Promise.all([
      startRole('gateway', [], env, listening('gateway listening')),
      startRole('gateway', [], env, listening('gateway listening')),
      startRole('grpc', [], { ...env, SUIGW_GRPC_PORT: String(grpcPort) }, /"msg":"grpc proxy listening"/),
      startRole('streams', [], env, listening('streams listening')),
    ]);
    roles.push(...started);
    [gatewayA, gatewayB] = [started[0]!.ready, started[1]!.ready];
    grpcHost = `127.0.0.1:${grpcPort}`;
    streamsUrl = started[3]!.ready;
    // Six Node processes load the TypeScript CLI: generous on a machine busy with other work.
  }, 240_000);

  // A failed step shows what each gateway's upstream looked like then (breakers, probes): an
  // answer such as 503 says little by itself, and the SDK's errors carry only the status.
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    for (const gateway of [gatewayA, gatewayB]) {
      const details = await call(gateway, 'GET', '/health/details', adminKey).catch((error: unknown) => ({ status: 0, body: String(error) }));
      console.error(`${gateway} /health/details: ${details.status} ${JSON.stringify(details.body)}`);
    }
  });

  afterAll(async () => {
    await Promise.all(roles.map((role) => role.stop()));
    await redis?.stop();
    await database?.drop();
  });

  const call = (gateway: string, method: string, path: string, key: string, body?: unknown) => fetch(`${gateway}/mainnet/v1${path}`, {
    method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  }).then(async (response) => ({ status: response.status, body: (await response.text().then((t) => (t ? JSON.parse(t) : undefined))) as Body }));

  /** Status and body in one string: a failed check shows what the gateway said. */
  const answered = (response: { status: number; body: unknown }) => `${response.status} ${JSON.stringify(response.body)}`;

  it('the SDK flows through both gateways and the gRPC proxy reach a stream served by the streams process', async () => {
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const stream = await call(gatewayA, 'POST', '/streams', adminKey, { name: 'received', type: 'address', filters: { addresses: [recipient] } });
    expect(stream.status).toBe(201);
    const socket = await openAddressSocket(`${streamsUrl.replace(/^http/, 'ws')}/mainnet/v1/warp/${stream.body.data.id}/ws?mode=resume`, adminKey);

    // JSON-RPC and GraphQL through each gateway replica, native gRPC through the proxy.
    const signers = Array.from({ length: 5 }, () => Ed25519Keypair.generate());
    await Promise.all(signers.map((signer) => requestSuiFromFaucetV2({ host: simnet.faucetUrl, recipient: signer.toSuiAddress() })));
    const jsonRpc = (gateway: string) => new SuiJsonRpcClient({ network: 'mainnet', transport: new JsonRpcHTTPTransport({ url: `${gateway}/mainnet/v1/jsonrpc`, rpc: { headers: { 'x-api-key': adminKey } } }) });
    const graphql = (gateway: string) => new SuiGraphQLClient({ network: 'mainnet', url: `${gateway}/mainnet/v1/graphql`, headers: { 'x-api-key': adminKey } });
    const grpc = new SuiGrpcClient({ network: 'mainnet', transport: new GrpcTransport({ host: grpcHost, channelCredentials: credentials.createInsecure(), meta: { 'x-api-key': adminKey } }) });
    // The faucet's coins must be visible before the builders pick gas.
    for (const signer of signers) {
      await expect.poll(async () => Number((await grpc.core.getBalance({ owner: signer.toSuiAddress() })).balance.balance), { timeout: 20_000 }).toBeGreaterThan(0);
    }

    const digests: string[] = [];
    for (const [index, gateway] of [gatewayA, gatewayB].entries()) {
      const viaJsonRpc = await jsonRpc(gateway).signAndExecuteTransaction({ transaction: transfer(2001 + index, recipient), signer: signers[index]!, options: { showEffects: true } });
      expect(viaJsonRpc.effects?.status.status).toBe('success');
      digests.push(viaJsonRpc.digest);
      const viaGraphql = await graphql(gateway).signAndExecuteTransaction({ transaction: transfer(2003 + index, recipient), signer: signers[2 + index]!, include: { effects: true } });
      expect(viaGraphql.$kind).toBe('Transaction');
      digests.push(viaGraphql.Transaction!.digest);
    }
    const viaGrpc = await grpc.signAndExecuteTransaction({ transaction: transfer(2005, recipient), signer: signers[4]!, include: { effects: true } });
    expect(viaGrpc.$kind).toBe('Transaction');
    digests.push(viaGrpc.Transaction!.digest);

    await expect.poll(() => [...socket.digests].sort(), { timeout: 30_000 }).toEqual([...digests].sort());
    // Both gateways read the same chain through the same upstream.
    for (const gateway of [gatewayA, gatewayB]) {
      const balance = await call(gateway, 'GET', `/accounts/${recipient}/balance`, adminKey);
      expect(answered(balance)).toMatch(/^200 /);
    }
    socket.close();
  }, 120_000);

  it('a key disabled on one gateway is refused by the other and by the gRPC proxy within a few seconds', async () => {
    const created = await call(gatewayA, 'POST', '/keys', adminKey, { name: 'app', projectId, scopes: ['data'] });
    expect(created.status).toBe(201);
    const { id, apiKey } = created.body.data as { id: string; apiKey: string };
    const grpc = new SuiGrpcClient({ network: 'mainnet', transport: new GrpcTransport({ host: grpcHost, channelCredentials: credentials.createInsecure(), meta: { 'x-api-key': apiKey } }) });
    // Cached as valid on B and on the proxy first, so that what follows is the cache's invalidation.
    expect(answered(await call(gatewayB, 'GET', '/chain', apiKey))).toMatch(/^200 /);
    // A raw call each time: the SDK's core API caches the chain identifier in the client.
    const serviceInfo = () => grpc.ledgerService.getServiceInfo({}).response;
    expect((await serviceInfo()).chainId).toBeTruthy();

    expect(await call(gatewayA, 'DELETE', `/keys/${id}`, adminKey)).toEqual({ status: 200, body: { data: { id, enabled: false } } });
    expect((await call(gatewayA, 'GET', '/chain', apiKey)).status).toBe(401);
    // README: other processes follow within a few seconds (NOTIFY, else the cache TTL of 3 s).
    await expect.poll(async () => (await call(gatewayB, 'GET', '/chain', apiKey)).status, { timeout: 5_000, interval: 100 }).toBe(401);
    await expect.poll(async () => serviceInfo().then(() => 'served', (error: { code?: string }) => error.code), { timeout: 5_000, interval: 100 }).toBe('UNAUTHENTICATED');
  }, 60_000);
});
