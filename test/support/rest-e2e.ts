import type { FastifyInstance } from 'fastify';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import type { Kysely } from 'kysely';
import type { RestCacheTables } from '../../services/rest/domain/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../../services/upstream/index.js';
import { buildRestTestApp } from './rest-app.js';
import { startTestSimnet, type TestSimnet } from './simnet-harness.js';

export interface RestE2E {
  simnet: TestSimnet;
  app: FastifyInstance;
  upstream: SuiUpstream;
  get(path: string): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are checked with zod schemas in the tests
  post(path: string, payload: object): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- idem
  address(label: string): string;
  faucet(recipient: string): Promise<void>;
  stop(): Promise<void>;
}

/** The REST app over a real SuiUpstream pointed at simnet (testnet route). */
export async function startRestE2E(options: { db?: Kysely<RestCacheTables>; seed?: string } = {}): Promise<RestE2E> {
  const simnet = await startTestSimnet({ seed: options.seed ?? 'suigw-rest-e2e' });
  const upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl }, policy: defaultUpstreamPolicy });
  const { app } = await buildRestTestApp(new Map([['testnet', upstream]]), options.db ? { db: options.db } : {});
  const send = async (method: 'GET' | 'POST', path: string, payload?: object) => {
    const response = await app.inject({ method, url: `/testnet/v1${path}`, ...(payload ? { payload } : {}) });
    return { status: response.statusCode, body: response.json() };
  };
  return {
    simnet, app, upstream,
    get: (path) => send('GET', path),
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
      await app.close();
      await upstream.close();
      await simnet.stop();
    },
  };
}
