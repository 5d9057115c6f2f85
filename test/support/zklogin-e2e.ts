import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { generateNonce, getExtendedEphemeralPublicKey } from '@mysten/sui/zklogin';
import type { Metrics } from '../../services/core/index.js';
import { createKey, createOrganization, type Scope } from '../../services/identity/index.js';
import { type Tier } from '../../services/plans/index.js';
import { defaultUpstreamPolicy, SuiUpstream, type Network, type Upstream } from '../../services/upstream/index.js';
import type { Prover } from '../../services/zklogin/index.js';
import { startTestSimnet, type TestSimnet } from './simnet-harness.js';
import { createTestApp, type TestApp } from './test-app.js';
import { startTestIssuers, type Issuer, type TestIssuers } from './zklogin-issuers.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field in the tests

export const CLIENT_ID = 'test-client.apps.example.com';

export interface ZkLoginCaller {
  organizationId: string;
  key: string;
}

export interface ZkResponse {
  status: number;
  body: Body;
  headers: Record<string, string | number | string[] | undefined>;
}

export interface ZkLoginE2E {
  gateway: TestApp;
  simnet: TestSimnet;
  issuers: TestIssuers;
  /** The seeded organization (team plan) with its admin key, CLIENT_ID on its audience list. */
  admin: ZkLoginCaller;
  /** POST/GET through HTTP; the clock moves 25 ms per call (inside the plan's request rate). */
  call(method: 'GET' | 'POST' | 'DELETE', path: string, options?: { key?: string | undefined; body?: unknown; network?: Network; headers?: Record<string, string>; raw?: string }): Promise<ZkResponse>;
  /** A new organization (one project per network given) with a key, CLIENT_ID accepted unless `audiences: []`. */
  newCaller(options?: { tier?: Tier; scopes?: Scope[]; network?: Network; audiences?: string[]; prepaidMicroUsd?: bigint }): Promise<ZkLoginCaller>;
  /** An id_token for CLIENT_ID signed by the issuer, valid for an hour on the gateway's clock. */
  jwt(claims?: Record<string, unknown>, options?: { issuer?: Issuer; kid?: string; foreign?: boolean }): Promise<string>;
  /** A fresh ephemeral key, its extended form, and a nonce for (maxEpoch, randomness) made with the SDK. */
  session(maxEpoch: number, randomness?: string): { keypair: Ed25519Keypair; extendedEphemeralPublicKey: string; nonce: string; randomness: string };
  currentEpoch(): number;
  stop(): Promise<void>;
}

/**
 * The gateway as `suigw dev` builds it with zkLogin on: simnet as mainnet's (and, unless `deadTestnet`,
 * testnet's) upstream, the four issuers' keys served locally, a real database, a manual clock.
 * `deadTestnet` points testnet at a closed port, so its current epoch cannot be read.
 */
export async function startZkLoginE2E(options: { prover?: Prover; env?: Record<string, string>; deadTestnet?: boolean; metrics?: Metrics } = {}): Promise<ZkLoginE2E> {
  const simnet = await startTestSimnet({ seed: 'suigw-zklogin' });
  const issuers = await startTestIssuers();
  const upstreamOf = (network: Network, grpcUrl: string): Upstream =>
    new SuiUpstream({ network, endpoints: { grpcUrl, graphqlUrl: simnet.graphqlUrl }, policy: { ...defaultUpstreamPolicy, retries: 0 } });
  const upstreams = new Map<Network, Upstream>([
    ['mainnet', upstreamOf('mainnet', simnet.grpcUrl)],
    ['testnet', upstreamOf('testnet', options.deadTestnet ? 'http://127.0.0.1:1' : simnet.grpcUrl)],
  ]);
  const gateway = await createTestApp({
    env: { SUIGW_ZKLOGIN_ISSUER_JWKS: issuers.jwksEnv, SUIGW_NETWORKS: 'mainnet,testnet,devnet', ...options.env },
    extra: { upstreams, ...(options.prover ? { zkloginProver: options.prover } : {}), ...(options.metrics ? { metrics: options.metrics } : {}) },
  });
  const call: ZkLoginE2E['call'] = async (method, path, callOptions = {}) => {
    gateway.clock.advance(25);
    const headers: Record<string, string> = { ...callOptions.headers };
    const key = 'key' in callOptions ? callOptions.key : gateway.adminKey;
    if (key !== undefined) headers['x-api-key'] = key;
    const response = await gateway.app.inject({
      method, url: `/${callOptions.network ?? 'mainnet'}${path}`, headers,
      ...(callOptions.raw !== undefined ? { payload: callOptions.raw } : callOptions.body === undefined ? {} : { payload: callOptions.body as object }),
    });
    return { status: response.statusCode, body: response.body === '' ? {} : response.json(), headers: response.headers };
  };
  const accept = async (key: string, audience: string) => {
    const added = await call('POST', '/v1/zklogin/audiences', { key, body: { audience } });
    if (added.status !== 201 && added.status !== 200) throw new Error(`audience not added: ${added.status} ${JSON.stringify(added.body)}`);
  };
  await accept(gateway.adminKey, CLIENT_ID);
  return {
    gateway, simnet, issuers,
    admin: { organizationId: gateway.organizationId, key: gateway.adminKey },
    call,
    async newCaller(callerOptions = {}) {
      const network = callerOptions.network ?? 'mainnet';
      const { organization, projects } = await createOrganization(gateway.db.database.db, gateway.clock, {
        name: 'Other', tier: callerOptions.tier ?? 'team', projects: [{ name: 'Default', network }],
      });
      if (callerOptions.prepaidMicroUsd !== undefined) {
        await gateway.db.database.db.updateTable('organizations').set({ prepaid_micro_usd: callerOptions.prepaidMicroUsd }).where('id', '=', organization.id).execute();
      }
      const key = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, {
        organizationId: organization.id, projectId: projects[0]!.id, name: 'k', scopes: callerOptions.scopes ?? ['zkLogin', 'manage'], expiresInDays: 30,
      });
      const audiences = callerOptions.audiences ?? [CLIENT_ID];
      if (audiences.length > 0) {
        // Straight into the table: the caller may lack the manage scope, or a plan that meters.
        for (const audience of audiences) {
          await gateway.db.database.db.insertInto('zklogin_audiences')
            .values({ id: `aud_${organization.id}_${audience.length}_${Math.random().toString(36).slice(2)}`, organization_id: organization.id, audience, created_at: new Date(gateway.clock.now()) })
            .execute();
        }
      }
      return { organizationId: organization.id, key: key.apiKey };
    },
    jwt(claims = {}, signOptions = {}) {
      const now = Math.floor(gateway.clock.now() / 1000);
      return issuers.sign({ aud: CLIENT_ID, sub: 'user-1', iat: now, exp: now + 3600, ...claims }, signOptions);
    },
    session(maxEpoch, randomness = '123456789012345678901234567890') {
      const keypair = new Ed25519Keypair();
      return {
        keypair,
        extendedEphemeralPublicKey: getExtendedEphemeralPublicKey(keypair.getPublicKey()),
        nonce: generateNonce(keypair.getPublicKey(), maxEpoch, randomness),
        randomness,
      };
    },
    currentEpoch: () => Number(simnet.ledger.currentEpoch().epoch),
    async stop() {
      await gateway.close();
      await Promise.all([...upstreams.values()].map((upstream) => upstream.close()));
      await issuers.stop();
      await simnet.stop();
    },
  };
}
