import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { createTestApp, type TestApp } from './test-app.js';
import type { Tier } from '../../services/plans/index.js';
import type { GatewayAppOptions } from '../../services/cli/gateway-app.js';
import { defaultUpstreamPolicy, SuiUpstream, type Upstream, type UpstreamPolicy } from '../../services/upstream/index.js';
import type { SimnetOptions } from '../../services/simnet/index.js';
import { startTestSimnet, type TestSimnet } from './simnet-harness.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are checked with zod schemas in the tests

export interface RestE2E {
  simnet: TestSimnet;
  gateway: TestApp;
  upstream: Upstream;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: Body }>;
  post(path: string, payload: object): Promise<{ status: number; body: Body }>;
  address(label: string): string;
  faucet(recipient: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The gateway as `suigw dev` builds it (buildApp: auth, error handler, network routing, real
 * PostgreSQL) with mainnet's upstream on simnet, called with the seeded admin key.
 */
export async function startRestE2E(
  options: { policy?: Partial<UpstreamPolicy>; env?: Record<string, string>; extra?: Partial<GatewayAppOptions>; tier?: Tier; simnet?: SimnetOptions } = {},
): Promise<RestE2E> {
  const simnet = await startTestSimnet(options.simnet);
  const upstream = new SuiUpstream({
    network: 'mainnet',
    endpoints: { grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl },
    policy: { ...defaultUpstreamPolicy, ...options.policy },
  });
  const gateway = await createTestApp({
    env: { SUIGW_PRICES: JSON.stringify({ '0x2::sui::SUI': 2 }), ...options.env },
    extra: { ...options.extra, upstreams: new Map([['mainnet', upstream]]) },
    ...(options.tier ? { tier: options.tier } : {}),
  });
  const send = async (method: 'GET' | 'POST', path: string, payload?: object, headers: Record<string, string> = {}) => {
    // The test clock moves only when told: 25 ms per request keeps a test's sequential calls at
    // 40 a second, inside the plan's rate, instead of an infinite burst at one instant.
    gateway.clock.advance(25);
    const response = await gateway.app.inject({ method, url: `/mainnet/v1${path}`, headers: { 'x-api-key': gateway.adminKey, ...headers }, ...(payload ? { payload } : {}) });
    return { status: response.statusCode, body: response.json() as Body };
  };
  return {
    simnet, gateway, upstream,
    get: (path, headers) => send('GET', path, undefined, headers),
    post: (path, payload) => send('POST', path, payload),
    address: (label) => {
      const account = simnet.accounts.find((a) => a.label === label);
      if (!account) throw new Error(`no simnet account ${label}`);
      return account.address;
    },
    async faucet(recipient) {
      await requestSuiFromFaucetV2({ host: simnet.faucetHost, recipient });
      simnet.seal();
    },
    async stop() {
      await gateway.close();
      await upstream.close();
      await simnet.stop();
    },
  };
}
