import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../services/core/index.js';
import { createKey, createOrganization, type KeyRateLimit, type Scope } from '../../services/identity/index.js';
import { installPlans, PLANS, readPlansFile, type Tier } from '../../services/plans/index.js';
import { startEnvoyStack, type EnvoyStack } from '../support/envoy-stack.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../support/grpc-proxy-e2e.js';
import { call } from '../support/management-calls.js';
import { envoyTransport, gatewayTransports, OTHER_VISITOR, type Charge, type Observed, type ParityTransport, type Visitor } from '../support/parity-transports.js';
import { WARP_ENGINES, type WarpEngine } from '../support/warp-engines.js';

/**
 * One pipeline, every transport: the same key in the same state gets the same decision, in the
 * transport's form of the spec's code (HTTP status and `code`, gRPC status and `CODE:` message,
 * a WebSocket upgrade's HTTP answer or close code), and the same charge, with metering on and
 * off. A copy of the rules drifting on one transport shows up here as a row that disagrees.
 * Envoy's row is `suigw authz` + `suigw ratelimit` + a gateway trusting their identity token
 * (test/support/envoy-stack.ts), on the same database and clock, so the same keys.
 */
const ENVOY = 'Envoy: authz + ratelimit + trusting gateway';

/** The organization rate of the plan the organization-rate state runs on, from a plans file (SUIGW_PLANS_FILE's reader). */
const ORG_RATE_TIER: Tier = 'growth';
const ORG_RPS = 2;
const ALLOWED_ORIGIN = 'https://app.example';
const REFUSED_ORIGIN = 'https://evil.example';

describe.each([{ metering: 'on' }, { metering: 'off' }])('the pipeline decides alike on every transport (SUIGW_METERING=$metering)', ({ metering }) => {
  const on = metering === 'on';
  let e2e: GrpcProxyE2E;
  let stack: EnvoyStack;
  let engine: WarpEngine;
  let plansDir: string;
  let TRANSPORTS: Record<string, ParityTransport>;
  const clock = new ManualClock();

  beforeAll(async () => {
    // A deployment's plans file with a tiny organization rate, read as `SUIGW_PLANS_FILE` is at start-up.
    plansDir = await mkdtemp(join(tmpdir(), 'suigw-parity-'));
    const plans = Object.fromEntries(Object.entries(PLANS).map(([id, { id: _id, ...numbers }]) => [id, numbers]));
    await writeFile(join(plansDir, 'plans.json'), JSON.stringify({ version: 1, plans: { ...plans, [ORG_RATE_TIER]: { ...plans[ORG_RATE_TIER], orgRps: ORG_RPS } } }));
    installPlans(readPlansFile(join(plansDir, 'plans.json')));

    engine = await WARP_ENGINES.find(([name]) => name === 'memory')![1](clock);
    e2e = await startGrpcProxyE2E({ env: { SUIGW_METERING: metering }, extra: { clock, warp: engine }, sharedPipeline: true });
    await e2e.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(e2e.gateway.app.server.address() as AddressInfo).port}/mainnet`;
    const created = await call(e2e.gateway, 'POST', '/v1/streams', { key: e2e.gateway.adminKey, body: { name: 's', type: 'coin', filters: { coinTypes: ['0x2::sui::SUI'] } } });
    const streamId = (created.body.data as { id: string }).id;
    stack = await startEnvoyStack({ env: { SUIGW_METERING: metering }, shared: { database: e2e.gateway.db.database, clock } });
    TRANSPORTS = { ...gatewayTransports(base, e2e, streamId), [ENVOY]: envoyTransport(stack) };
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await e2e?.stop();
    await engine?.close();
    installPlans(PLANS);
    await rm(plansDir, { recursive: true, force: true });
  });

  const NOTHING: Charge = { requests: 0, credits: 0 };
  const plus = (...charges: Charge[]): Charge => charges.reduce((sum, c) => ({ requests: sum.requests + c.requests, credits: sum.credits + c.credits }), NOTHING);
  /** Refused requests are counted in usage, and not billed. */
  const refused = (count: number): Charge => ({ requests: count, credits: 0 });

  const names = () => Object.keys(TRANSPORTS);
  const everywhere = <T>(expected: T | ((transport: ParityTransport) => T)) =>
    Object.fromEntries(Object.entries(TRANSPORTS).map(([name, transport]) => [name, typeof expected === 'function' ? (expected as (t: ParityTransport) => T)(transport) : expected]));

  interface KeyWanted { scopes?: Scope[]; network?: 'testnet'; rateLimit?: Partial<KeyRateLimit>; allowedOrigins?: string[] }
  /** A key of the gateway's organization (mainnet unless said), with every scope a transport needs unless said. */
  const keyOf = async (wanted: KeyWanted = {}) =>
    (await createKey(e2e.gateway.db.database, e2e.gateway.clock, { kind: 'operator' }, {
      organizationId: e2e.gateway.organizationId,
      projectId: wanted.network === 'testnet' ? e2e.gateway.projects.testnet : e2e.gateway.projects.mainnet,
      name: 'parity',
      scopes: wanted.scopes ?? ['data', 'streams'],
      expiresInDays: 30,
      ...(wanted.rateLimit ? { rateLimit: wanted.rateLimit } : {}),
      ...(wanted.allowedOrigins ? { allowedOrigins: wanted.allowedOrigins } : {}),
    }));

  /** A key of a new organization of its own (its own plan rate and credits), on mainnet. */
  const keyOfNewOrganization = async (tier: Tier) => {
    const { database } = e2e.gateway.db;
    const { organization, projects } = await createOrganization(database.db, e2e.gateway.clock, { name: 'Parity', tier, projects: [{ name: 'D', network: 'mainnet' }] });
    return createKey(database, e2e.gateway.clock, { kind: 'operator' }, {
      organizationId: organization.id, projectId: projects[0]!.id, name: 'own', scopes: ['data', 'streams'], expiresInDays: 30,
    });
  };

  /** Requests and credits charged to a key, once every process of the row wrote its usage. */
  const charged = async (keyId: string) => {
    await e2e.gateway.pipeline!.metering!.usage.flush();
    await stack.sync();
    const row = await e2e.gateway.db.database.db
      .selectFrom('usage_minutes')
      .select((eb) => [eb.fn.coalesce(eb.fn.sum<string>('requests'), eb.lit(0)).as('requests'), eb.fn.coalesce(eb.fn.sum<string>('credits'), eb.lit(0)).as('credits')])
      .where('key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    return { requests: Number(row.requests), credits: Number(row.credits) };
  };

  /** What every transport answered for the same key. */
  const across = async (key: string | undefined, visitor?: Visitor): Promise<Record<string, Observed>> => {
    const observed: Record<string, Observed> = {};
    for (const [name, transport] of Object.entries(TRANSPORTS)) observed[name] = await transport.call(key, visitor);
    return observed;
  };

  /** Four calls at once per transport, each transport with its own fresh key; the outcomes counted (sorted), never timed. */
  const bursts = async (freshKey: () => Promise<{ apiKey: string; id: string }>, then?: (transport: ParityTransport, key: string) => Promise<Observed>) => {
    const observed: Record<string, { burst: Observed[]; then?: Observed; charged: { requests: number; credits: number } }> = {};
    for (const [name, transport] of Object.entries(TRANSPORTS)) {
      const key = await freshKey();
      const burst = (await Promise.all([1, 2, 3, 4].map(() => transport.call(key.apiKey)))).sort();
      const after = then ? { then: await then(transport, key.apiKey) } : {};
      observed[name] = { burst, ...after, charged: await charged(key.id) };
    }
    return observed;
  };

  it('a valid key: admitted everywhere, charged the transport\'s price (nothing with metering off)', async () => {
    const observed: Record<string, unknown> = {};
    for (const [name, transport] of Object.entries(TRANSPORTS)) {
      const key = await keyOf();
      observed[name] = { answer: await transport.call(key.apiKey), charged: await charged(key.id) };
    }
    expect(observed).toEqual(everywhere((transport) => ({ answer: 'ok', charged: on ? transport.admitted : NOTHING })));
  });

  it('no key: 401 Missing API key everywhere (the spec sends no code)', async () => {
    expect(await across(undefined)).toEqual(everywhere('"Missing API key"'));
  });

  it('an unknown key: 401 Invalid API key everywhere', async () => {
    expect(await across(`svc_pat_${'x'.repeat(40)}`)).toEqual(everywhere('"Invalid API key"'));
  });

  it('a disabled key: 401 saying so everywhere', async () => {
    const key = await keyOf();
    expect((await call(e2e.gateway, 'DELETE', `/v1/keys/${key.id}`, { key: e2e.gateway.adminKey })).status).toBe(200);
    expect(await across(key.apiKey)).toEqual(everywhere('"This API key has been disabled."'));
  });

  it('an expired key: API_KEY_EXPIRED everywhere', async () => {
    const key = await keyOf();
    await e2e.gateway.db.database.db.updateTable('api_keys').set({ expires_at: new Date(clock.now() - 1_000) }).where('id', '=', key.id).execute();
    expect(await across(key.apiKey)).toEqual(everywhere('API_KEY_EXPIRED'));
  });

  it('a key of another network: NETWORK_MISMATCH everywhere', async () => {
    expect(await across((await keyOf({ network: 'testnet' })).apiKey)).toEqual(everywhere('NETWORK_MISMATCH'));
  });

  it('a key without the scope: INSUFFICIENT_SCOPE everywhere', async () => {
    expect(await across((await keyOf({ scopes: ['manage'] })).apiKey)).toEqual(everywhere('INSUFFICIENT_SCOPE'));
  });

  it('an origin-restricted key: another Origin is ORIGIN_NOT_ALLOWED everywhere, not charged; its own Origin passes where a client can send one', async () => {
    const key = await keyOf({ allowedOrigins: [ALLOWED_ORIGIN] });
    expect(await across(key.apiKey, { origin: REFUSED_ORIGIN })).toEqual(everywhere('ORIGIN_NOT_ALLOWED'));
    expect(await charged(key.id)).toEqual(NOTHING);
    // A client that sends no Origin (native gRPC: the transport's `noOrigin` says why) cannot use
    // the restricted key at all: the same 403 form, from the missing Origin.
    expect(await across(key.apiKey, { origin: ALLOWED_ORIGIN })).toEqual(everywhere((transport) => (transport.noOrigin ? 'ORIGIN_NOT_ALLOWED' : 'ok')));
  });

  it(`a per-key cap of 1 a second: a burst of four is ${on ? 'one admitted, the rest RATE_LIMIT_EXCEEDED (not billed)' : 'all admitted (nothing is limited)'}, everywhere`, async () => {
    const observed = await bursts(() => keyOf({ rateLimit: { perKeyRps: 1 } }));
    expect(observed).toEqual(everywhere((transport) => (on
      ? { burst: ['RATE_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'ok'], charged: plus(transport.admitted, refused(3)) }
      : { burst: ['ok', 'ok', 'ok', 'ok'], charged: NOTHING })));
  });

  it(`a per-IP cap of 1 a second: a burst of four from one address is ${on ? 'one admitted, the rest RATE_LIMIT_EXCEEDED (not billed), and another address is still admitted' : 'all admitted'}, everywhere`, async () => {
    const fromAnotherVisitor = async (transport: ParityTransport, key: string) =>
      transport.fixedAddress ? `not driven: ${transport.fixedAddress}` : transport.call(key, { address: OTHER_VISITOR });
    const observed = await bursts(() => keyOf({ rateLimit: { perIpRps: 1 } }), fromAnotherVisitor);
    expect(observed).toEqual(everywhere((transport) => ({
      burst: on ? ['RATE_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'ok'] : ['ok', 'ok', 'ok', 'ok'],
      then: transport.fixedAddress ? `not driven: ${transport.fixedAddress}` : 'ok',
      charged: on ? plus(transport.admitted, refused(3), transport.fixedAddress ? NOTHING : transport.admitted) : NOTHING,
    })));
  });

  it(`an organization rate of ${ORG_RPS} a second (the plans file): a burst of four is ${on ? 'two admitted, two 429 without code (billed normally)' : 'all admitted'}, everywhere`, async () => {
    // Each transport's key is of an organization of its own (its own plan bucket). The Warp stream
    // is another organization's: the pipeline admits (and charges) the connection, then the stream
    // refuses it, so no connection minute is charged: one credit per call on every transport.
    const observed = await bursts(() => keyOfNewOrganization(ORG_RATE_TIER));
    expect(observed).toEqual(everywhere(on
      ? { burst: ['"Organization rate limit exceeded"', '"Organization rate limit exceeded"', 'ok', 'ok'], charged: { requests: 4, credits: 4 } }
      : { burst: ['ok', 'ok', 'ok', 'ok'], charged: NOTHING }));
  });

  it(`an organization out of credits: ${on ? 'CU_QUOTA_EXCEEDED, not charged' : 'admitted (nothing is charged)'} everywhere`, async () => {
    // A wallet organization has no monthly credits and nothing prepaid.
    const observed: Record<string, unknown> = {};
    for (const [name, transport] of Object.entries(TRANSPORTS)) {
      const key = await keyOfNewOrganization('wallet');
      observed[name] = { answer: await transport.call(key.apiKey), charged: (await charged(key.id)).credits };
    }
    expect(observed).toEqual(everywhere({ answer: on ? 'CU_QUOTA_EXCEEDED' : 'ok', charged: 0 }));
  });

  it('the table covers every transport', () => {
    expect(names()).toEqual([
      'REST', 'JSON-RPC HTTP', 'GraphQL', 'gRPC native', 'gRPC-Web', 'gRPC reflection', 'JSON-RPC WebSocket', 'Warp WebSocket', 'Warp SSE', ENVOY,
    ]);
  });
});
