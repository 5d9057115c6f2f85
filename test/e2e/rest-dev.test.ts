import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { DevState } from '../../services/cli/dev.js';
import { startDev, type DevProcess } from '../support/dev-process.js';

describe('suigw dev serves the REST data plane from its in-process simnet', () => {
  let dev: DevProcess;
  let state: DevState;
  beforeAll(async () => {
    dev = await startDev();
    state = dev.state;
  }, 180_000);
  afterAll(async () => dev?.stop());

  const get = async (network: string, path: string) => {
    const response = await fetch(`${state.networks[network]!.baseUrl}/v1${path}`, { headers: { 'x-api-key': state.adminKey } });
    return { status: response.status, body: (await response.json()) as { data?: unknown; code?: string } };
  };

  it("dev.json names each network's gRPC proxy; SuiGrpcClient reads through it over gRPC-Web, and a key of the other network is refused", async () => {
    const { SuiGrpcClient } = await import('@mysten/sui/grpc');
    const mainnet = state.networks['mainnet']!.grpcUrl!;
    const testnet = state.networks['testnet']!.grpcUrl!;
    expect(new URL(mainnet).port).not.toBe(new URL(testnet).port);
    const client = new SuiGrpcClient({ network: 'mainnet', baseUrl: mainnet, meta: { 'x-api-key': state.adminKey } });
    const { chainIdentifier } = await client.core.getChainIdentifier();
    expect(chainIdentifier).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const wrongNetwork = new SuiGrpcClient({ network: 'testnet', baseUrl: testnet, meta: { 'x-api-key': state.adminKey } });
    await expect(wrongNetwork.core.getChainIdentifier()).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/^NETWORK_MISMATCH: /) });
  });

  it('dev.json names the simnet upstream', () => {
    expect(state.simnet).toEqual({ grpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), graphqlUrl: expect.stringMatching(/\/graphql$/), faucetUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
  });

  it('dev.json names a metricsUrl on its own port that answers a plain GET with the request series', async () => {
    expect(state.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(state.metricsUrl!).port).not.toBe(new URL(state.gatewayUrl).port);
    expect((await get('mainnet', '/chain')).status).toBe(200);
    const response = await fetch(state.metricsUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await response.text();
    expect(body).toContain('suigw_requests_total{protocol="rest",route="/mainnet/v1/chain",method="GET",status="200"}');
    expect(body).toContain('suigw_rate_limit_rejections_total{kind="key_or_ip"} 0');
    expect(body).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it('both networks answer from simnet; a faucet call shows up in the balance', async () => {
    const mainnet = await get('mainnet', '/chain');
    expect(mainnet.status).toBe(200);
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    await requestSuiFromFaucetV2({ host: state.simnet!.faucetUrl, recipient });
    // the faucet's transfer is in the ledger at once; balances read live objects
    const balance = await get('mainnet', `/accounts/${recipient}/balance`);
    expect(balance).toMatchObject({ status: 200, body: { data: [expect.objectContaining({ balance: '10000000000', decimals: 9 })] } });
    // Upstreams are probed in the background (1 s probe timeout); on a loaded test machine one
    // round may miss it, so look until a later round finds both up.
    // Public /health is `ok` only when every upstream's last probe found it up.
    const health = async () => (await (await fetch(`${state.gatewayUrl}/health`)).json()) as { status: string; database: string };
    await expect.poll(async () => (await health()).status, { timeout: 25_000, interval: 500 }).toBe('ok');
    expect(await get('mainnet', '/health/details')).toMatchObject({ status: 200, body: { data: { network: 'mainnet', status: 'up', grpc: { status: 'up' }, graphql: { status: 'up' } } } });
  });
});
