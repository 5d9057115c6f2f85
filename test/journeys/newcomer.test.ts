import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentials } from '@grpc/grpc-js';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { JsonRpcHTTPTransport, SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { EventSource } from 'eventsource';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startDev, type DevProcess } from '../support/dev-process.js';
import { openAddressSocket, transfer } from './support/sdk-flows.js';

const ROOT = join(import.meta.dirname, '..', '..');

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field


/**
 * Journey 1: a newcomer runs `make dev` and follows the README. The README's curl examples, then
 * each official client's default transfer flow through the gateway (SuiJsonRpcClient, SuiGrpcClient
 * over native gRPC and over gRPC-Web, SuiGraphQLClient), each transfer seen by a Warp WebSocket, a
 * Warp SSE stream and a webhook created just before it (verified with `standardwebhooks`),
 * every charge in /v1/usage and /metrics, and last an on-chain plan set up as docs/billing.md says.
 */
describe('journey 1: make dev, as the README tells a newcomer', () => {
  let dev: DevProcess;
  let key: string;
  let base: string;
  beforeAll(async () => {
    dev = await startDev();
    key = dev.state.adminKey;
    base = dev.state.networks['mainnet']!.baseUrl;
  }, 180_000);
  afterAll(async () => dev?.stop());

  it("the quickstart's curl examples: who am I, projects, a data key made and disabled", async () => {
    const me = await dev.curl([`${base}/v1/auth/me`, '-H', `x-api-key: ${key}`]);
    expect(me.status).toBe(200);
    expect((me.body as Body).data.organization.id).toBe(dev.state.organizationId);
    const projects = await dev.curl([`${base}/v1/projects`, '-H', `x-api-key: ${key}`]);
    expect(projects.status).toBe(200);
    const project = (projects.body as Body).data.find((p: Body) => p.network === 'mainnet');
    const created = await dev.curl(['-X', 'POST', `${base}/v1/keys`, '-H', `x-api-key: ${key}`, '-H', 'content-type: application/json', '-d',
      JSON.stringify({ name: 'web app', projectId: project.id, scopes: ['data'], expiresInDays: 90, allowedOrigins: ['https://app.example.com', '*.example.com'] })]);
    expect(created.status).toBe(201);
    const appKey = (created.body as Body).data;
    expect(appKey.apiKey).toMatch(/^svc_pat_/);
    const chain = await dev.curl([`${base}/v1/chain`, '-H', `x-api-key: ${appKey.apiKey}`, '-H', 'origin: https://app.example.com']);
    expect(chain.status).toBe(200);
    const disabled = await dev.curl(['-X', 'DELETE', `${base}/v1/keys/${appKey.id}`, '-H', `x-api-key: ${key}`]);
    expect(disabled).toEqual({ status: 200, body: { data: { id: appKey.id, enabled: false } } });
    expect((await dev.curl([`${base}/v1/chain`, '-H', `x-api-key: ${appKey.apiKey}`, '-H', 'origin: https://app.example.com'])).status).toBe(401);
  });

  it("the README's Quickstart block, run by bash as written from a directory whose .suigw/ is the running dev's", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const block = /## Quickstart\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const projects = (await dev.curl([`${base}/v1/projects`, '-H', `x-api-key: ${key}`])).body as Body;
    const projectId = projects.data.find((p: Body) => p.network === 'mainnet').id;
    // The journey's startDev stands in for the block's `make dev` (it runs until Ctrl-C); the two
    // placeholders are what a reader copies from the answers above them; each curl's answer gets
    // a line of its own so the answers can be read apart.
    const script = block
      .replace(/^make dev.*$/m, '')
      .replace('proj_…', projectId)
      .replace('key_…', "$(curl -s $BASE/v1/keys -H \"x-api-key: $KEY\" | node -p \"JSON.parse(require('fs').readFileSync(0)).data.find((k) => k.name === 'web app' && k.enabled).id\")");
    const cwd = await mkdtemp(join(tmpdir(), 'suigw-readme-'));
    try {
      await symlink(dev.dataDir, join(cwd, '.suigw'));
      const { stdout } = await promisify(execFile)('bash', ['-euc', `curl() { command curl "$@"; echo; }\n${script}`], { cwd });
      const answers = stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Body);
      expect(answers).toHaveLength(4);
      expect(answers[0].data.organization.id).toBe(dev.state.organizationId);
      expect(answers[1].data.map((p: Body) => p.id)).toContain(projectId);
      expect(answers[2].data).toMatchObject({ name: 'web app', projectId, scopes: ['data'], allowedOrigins: ['https://app.example.com', '*.example.com'] });
      expect(answers[3]).toEqual({ data: { id: answers[2].data.id, enabled: false } });
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('each official client transfers with its default flow; a webhook, a WebSocket and an SSE stream made just before receive every transfer', async () => {
    const faucet = dev.state.simnet!.faucetUrl;
    const grpcUrl = dev.state.networks['mainnet']!.grpcUrl!;
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const manage = (method: string, path: string, body?: unknown) => fetch(`${base}/v1${path}`, {
      method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    }).then(async (response) => ({ status: response.status, body: await response.json() as Body }));

    const clients = {
      jsonRpc: new SuiJsonRpcClient({ network: 'mainnet', transport: new JsonRpcHTTPTransport({ url: `${base}/v1/jsonrpc`, rpc: { headers: { 'x-api-key': key } } }) }),
      grpcNative: new SuiGrpcClient({ network: 'mainnet', transport: new GrpcTransport({ host: new URL(grpcUrl).host, channelCredentials: credentials.createInsecure(), meta: { 'x-api-key': key } }) }),
      grpcWeb: new SuiGrpcClient({ network: 'mainnet', baseUrl: grpcUrl, meta: { 'x-api-key': key } }),
      graphql: new SuiGraphQLClient({ network: 'mainnet', url: `${base}/v1/graphql`, headers: { 'x-api-key': key } }),
    };
    const signers = Object.fromEntries(Object.keys(clients).map((name) => [name, Ed25519Keypair.generate()])) as Record<keyof typeof clients, Ed25519Keypair>;
    await Promise.all(Object.values(signers).map((signer) => requestSuiFromFaucetV2({ host: faucet, recipient: signer.toSuiAddress() })));

    // The first transfer is signed in advance, so that it executes the moment the receivers'
    // 201s are in: a definition must apply to every checkpoint after its 201, with no pause.
    const first = transfer(1001, recipient);
    first.setSender(signers.grpcNative.toSuiAddress());
    const firstBytes = await first.build({ client: clients.grpcNative });
    const firstSignature = (await signers.grpcNative.signTransaction(firstBytes)).signature;

    const receiver = await startWebhookReceiver();
    const receivedBy = { addresses: [recipient] };
    const [hook, wsStream, sseStream] = await Promise.all([
      manage('POST', '/webhooks', { url: `${receiver.url}/sui`, type: 'address', filters: receivedBy }),
      manage('POST', '/streams', { name: 'ws', type: 'address', filters: receivedBy }),
      manage('POST', '/streams', { name: 'sse', type: 'address', filters: receivedBy }),
    ]);
    const executed = await clients.grpcNative.core.executeTransaction({ transaction: firstBytes, signatures: [firstSignature] });
    expect(executed.$kind).toBe('Transaction');
    const digests = [executed.Transaction!.digest];
    expect([hook.status, wsStream.status, sseStream.status]).toEqual([201, 201, 201]);
    for (const created of [hook, wsStream, sseStream]) expect(created.body.data.fromCheckpoint).toMatch(/^\d+$/);

    // Streams connected afterwards replay their buffer first (mode=resume), then follow live.
    const ws = openAddressSocket(`${dev.state.networks['mainnet']!.wsBaseUrl}/v1/warp/${wsStream.body.data.id}/ws?mode=resume`, key);
    const sseDigests: string[] = [];
    const source = new EventSource(`${base}/v1/warp/${sseStream.body.data.id}/stream?mode=resume`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, 'x-api-key': key } }),
    });
    const sseConnected = new Promise((resolve) => source.addEventListener('connected', resolve));
    source.addEventListener('address', (event) => sseDigests.push((JSON.parse(String(event.data)) as { digest: string }).digest));
    const [socket] = await Promise.all([ws, sseConnected]);

    // Then each client's own default flow: build (budget by simulation, gas chosen), sign, execute.
    await clients.grpcNative.core.waitForTransaction({ digest: digests[0]! });
    const jsonRpc = await clients.jsonRpc.signAndExecuteTransaction({ transaction: transfer(1002, recipient), signer: signers.jsonRpc, options: { showEffects: true } });
    expect(jsonRpc.effects?.status.status).toBe('success');
    digests.push(jsonRpc.digest);
    const grpcWeb = await clients.grpcWeb.signAndExecuteTransaction({ transaction: transfer(1003, recipient), signer: signers.grpcWeb, include: { effects: true } });
    expect(grpcWeb.$kind).toBe('Transaction');
    digests.push(grpcWeb.Transaction!.digest);
    const graphql = await clients.graphql.signAndExecuteTransaction({ transaction: transfer(1004, recipient), signer: signers.graphql, include: { effects: true } });
    expect(graphql.$kind).toBe('Transaction');
    digests.push(graphql.Transaction!.digest);
    const nativeAgain = await clients.grpcNative.signAndExecuteTransaction({ transaction: transfer(1005, recipient), signer: signers.grpcNative, include: { effects: true } });
    expect(nativeAgain.$kind).toBe('Transaction');
    digests.push(nativeAgain.Transaction!.digest);
    await clients.grpcNative.core.waitForTransaction({ digest: digests.at(-1)! });
    const balance = await clients.grpcNative.core.getBalance({ owner: recipient });
    expect(balance.balance.balance).toBe(String(1001 + 1002 + 1003 + 1004 + 1005));

    const secret = hook.body.data.secret as string;
    const verified = () => receiver.received.map((request) => new StandardWebhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']), 'webhook-timestamp': String(request.headers['webhook-timestamp']), 'webhook-signature': String(request.headers['webhook-signature']),
    }) as { type: string; data: { digest: string; role: string } });
    await expect.poll(() => verified().map((payload) => payload.data.digest).sort(), { timeout: 30_000 }).toEqual([...digests].sort());
    expect(verified().every((payload) => payload.type === 'address' && payload.data.role === 'receiver')).toBe(true);
    await expect.poll(() => [...socket.digests].sort(), { timeout: 30_000 }).toEqual([...digests].sort());
    await expect.poll(() => [...sseDigests].sort(), { timeout: 30_000 }).toEqual([...digests].sort());
    socket.close();
    source.close();
    await receiver.close();
  }, 90_000);

  it('/v1/usage shows each charge by route, and /metrics counts the same requests and credits', async () => {
    const usage = async () => (await dev.curl([`${base}/v1/usage`, '-H', `x-api-key: ${key}`])).body as Body;
    // One process: /v1/usage flushes its own counts first, so the transfers are all there.
    const { data } = await usage();
    const route = (name: string) => data.routes.find((r: Body) => r.network === 'mainnet' && r.route === name) ?? { requests: 0, credits: 0 };
    expect(data.totals.credits).toBe(data.routes.reduce((sum: number, r: Body) => sum + r.credits, 0));
    // The SDK's own calls: 1 credit each.
    for (const name of ['POST /v1/jsonrpc', 'POST /v1/graphql', 'GET /v1/chain', 'gRPC /sui.rpc.v2.TransactionExecutionService/SimulateTransaction']) {
      expect(route(name).credits, name).toBeGreaterThan(0);
      expect(route(name).credits, name).toBe(route(name).requests);
    }
    // Three transactions executed over gRPC (two native, one gRPC-Web); five transfers reached
    // each of the two streams (1 credit per event), and each connection started its first minute.
    expect(route('gRPC /sui.rpc.v2.TransactionExecutionService/ExecuteTransaction').credits).toBe(3);
    expect(route('WARP event').credits).toBe(10);
    expect(route('WARP connection minute').credits).toBe(2);

    const metrics = await (await fetch(dev.state.metricsUrl!)).text();
    const sample = (series: string) => Number(metrics.split('\n').find((line) => line.startsWith(`${series} `))?.split(' ')[1] ?? 0);
    expect(sample('suigw_requests_total{protocol="jsonrpc",route="/mainnet/v1/jsonrpc",method="POST",status="200"}')).toBe(route('POST /v1/jsonrpc').requests);
    expect(sample('suigw_requests_total{protocol="graphql",route="/mainnet/v1/graphql",method="POST",status="200"}')).toBe(route('POST /v1/graphql').requests);
    // Every credit, Warp's included, goes through the pipeline's one charge: the dashboard and /v1/usage agree.
    expect(sample(`suigw_credits_consumed_total{organization="${dev.state.organizationId}",plan="team"}`)).toBe(data.totals.credits);
  });

  // Last: it moves the organization to another plan.
  it("an on-chain plan as docs/billing.md's 'Try it in suigw dev' says: USDC from the faucet, prepare, the funder signs and executes through the gateway, activate", async () => {
    const funder = Ed25519Keypair.generate();
    for (const coin of ['usdc', 'gas']) {
      const funded = await dev.curl(['-X', 'POST', `${dev.state.simnet!.faucetUrl}/v2/${coin}`, '-H', 'content-type: application/json', '-d', JSON.stringify({ FixedAmountRequest: { recipient: funder.toSuiAddress() } })]);
      expect(funded.status, coin).toBe(200);
    }
    const billing = (path: string, body?: unknown) => dev.curl([
      ...(body === undefined ? [] : ['-X', 'POST', '-H', 'content-type: application/json', '-d', JSON.stringify(body)]), `${base}/v1/billing${path}`, '-H', `x-api-key: ${key}`,
    ]);
    const prepared = await billing('/onchain/prepare', { network: 'testnet', tier: 'growth', funderAddress: funder.toSuiAddress() });
    expect(prepared.status).toBe(200);

    // The transaction goes to testnet, so through the gateway with a key of the testnet project.
    const projects = (await dev.curl([`${base}/v1/projects`, '-H', `x-api-key: ${key}`])).body as Body;
    const testnetKey = (await dev.curl(['-X', 'POST', `${base}/v1/keys`, '-H', `x-api-key: ${key}`, '-H', 'content-type: application/json', '-d',
      JSON.stringify({ name: 'billing', projectId: projects.data.find((p: Body) => p.network === 'testnet').id })])).body as Body;
    const testnet = new SuiJsonRpcClient({ network: 'testnet', transport: new JsonRpcHTTPTransport({
      url: `${dev.state.networks['testnet']!.baseUrl}/v1/jsonrpc`, rpc: { headers: { 'x-api-key': testnetKey.data.apiKey } },
    }) });
    const txBytes = Buffer.from((prepared.body as Body).data.txBytes, 'base64');
    const executed = await testnet.executeTransactionBlock({
      transactionBlock: txBytes, signature: (await funder.signTransaction(txBytes)).signature, options: { showEffects: true, showObjectChanges: true },
    });
    expect(executed.effects?.status.status).toBe('success');
    await testnet.waitForTransaction({ digest: executed.digest });
    const allowance = executed.objectChanges?.find((change) => change.type === 'created' && change.objectType.startsWith('0x2::allowance::Allowance<'));
    expect(allowance?.type).toBe('created');

    const activated = await billing('/onchain/activate', { network: 'testnet', tier: 'growth', allowanceId: allowance?.type === 'created' ? allowance.objectId : '' });
    expect(activated.status).toBe(200);
    expect((activated.body as Body).data).toMatchObject({ state: 'active', network: 'testnet', plan: { tier: 'growth', interval: 'month', price: '199000000' } });
    expect((activated.body as Body).data.lastCharges).toMatchObject([{ kind: 'first', tier: 'growth', amount: '199000000' }]);
    const me = await dev.curl([`${base}/v1/auth/me`, '-H', `x-api-key: ${key}`]);
    expect((me.body as Body).data.subscription).toEqual({ plan: 'growth', status: 'active' });
  }, 60_000);
});
