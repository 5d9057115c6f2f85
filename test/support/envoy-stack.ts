import { credentials, type Client } from '@grpc/grpc-js';
import { createLogger, loadConfig, ManualClock, networkRewriter, type Config } from '../../services/core/index.js';
import { buildGatewayApp } from '../../services/cli/gateway-app.js';
import { buildStreamsApp } from '../../services/cli/streams-app.js';
import { gatewayRouteDeclarations } from '../../services/cli/gateway-routes.js';
import { signedIdentityOf } from '../../services/cli/identity-tokens.js';
import {
  AuthzCheck,
  DESCRIPTOR_KEYS,
  GatewayRoutes,
  RateLimitCheck,
  startEnvoyServices,
  type CheckResponse,
  type EnvoyServiceServer,
  type RateLimitResponse,
} from '../../services/envoy/index.js';
import { authorizationService, rateLimitService } from './envoy-protos.js';
import { ALL_SCOPES } from './test-app.js';
import { Authenticator, createKey, createOrganization, IDENTITY_HEADERS, type KeyRateLimit, type Scope } from '../../services/identity/index.js';
import { type Tier } from '../../services/plans/index.js';
import { CreditLedger, Meter, MemoryRateLimiter, UsageRecorder, type Metering } from '../../services/metering/index.js';
import type { App } from '../../services/route-contract/index.js';
import { defaultUpstreamPolicy, SuiUpstream } from '../../services/upstream/index.js';
import { startFakeUpstream } from './fake-upstream.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { WARP_ENGINES } from './warp-engines.js';
import type { Database } from '../../services/db/index.js';
import { assemblePipeline, openPipeline } from '../../services/pipeline/index.js';

/** One HTTP request as a client sends it, and the answer as it reaches the client. */
export interface ClientRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export interface ClientAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

export interface Caller {
  organizationId: string;
  key: string;
  keyId: string;
}

const SECRET = 'envoy-stack-test-secret-0123456789abcdef';
/** Envoy's route to the streams role (operator/xds/listeners.ts), on the network's path. */
const WARP_PATH = /^\/[^/]+\/v1\/warp\//;
// No retries, so an upstream error answers at once; budgets well above the shipped ones, because no
// test here is about time and a busy machine must not turn a read of the fake upstream into a 504.
const policy = {
  ...defaultUpstreamPolicy, deadlineMs: 15_000, attemptTimeoutMs: 10_000, retries: 0, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 1_000, breakerCooldownMs: 60_000, healthTimeoutMs: 3_000,
};

/**
 * Both ways of running the pipeline, on one database, one clock and one fake upstream:
 * - in-process: the gateway alone (SUIGW_TRUST_IDENTITY_HEADERS off), as without Envoy;
 * - behind Envoy: `suigw authz` and `suigw ratelimit` as real grpc-js servers called with
 *   Envoy's request shapes, and a gateway and a streams role (Warp, routed by Envoy's `/v1/warp/`
 *   prefix) trusting their identity headers. Envoy itself cannot run
 *   here: `viaEnvoy` does what its ext_authz and ratelimit filters do with the answers (deny with
 *   the denied response; add/remove the allowed headers; describe the request to the RLS with
 *   the descriptor table's actions; answer OVER_LIMIT with the RLS's body and headers; else route).
 * The ratelimit service and the trusting gateway and streams role share one limiter (Redis in
 * production) and keep their own credit ledgers and usage recorders, as separate processes do.
 * The in-process gateway serves Warp too, as `suigw dev` does.
 */
export async function startEnvoyStack(options: {
  env?: Record<string, string>;
  /** Another test's database and clock (its keys, its time), instead of a fresh database and clock of the stack's own. */
  shared?: { database: Database; clock: ManualClock };
} = {}) {
  const logger = createLogger('silent');
  const clock = options.shared?.clock ?? new ManualClock();
  const db: TestDatabase | undefined = options.shared ? undefined : await createTestDatabase();
  const database = options.shared?.database ?? db!.database;
  // No shedding by event-loop delay in-process (as test-app.ts says why).
  const base = { LOG_LEVEL: 'silent', SUIGW_SECRET: SECRET, SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: '0', ...options.env };
  const config: Readonly<Config> = loadConfig(base);
  const trustingConfig: Readonly<Config> = loadConfig({ ...base, SUIGW_TRUST_IDENTITY_HEADERS: 'true' });
  const fake = await startFakeUpstream();
  const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
  const upstreams = new Map([['mainnet' as const, upstream]]);

  const warp = await WARP_ENGINES.find(([name]) => name === 'memory')![1](clock);
  const inProcessPipeline = await openPipeline({ config, database, clock, logger });
  const inProcess = await buildGatewayApp({ config, database, clock, logger, upstreams, pipeline: inProcessPipeline, warp });

  const limiter = new MemoryRateLimiter(clock);
  const gatewayMetering = meteringOf(limiter, database, clock, logger);
  const rlsMetering = meteringOf(limiter, database, clock, logger);
  const streamsMetering = meteringOf(limiter, database, clock, logger);
  const authenticator = new Authenticator({ database, clock, ttlMs: config.keyCacheTtlMs, unknownKeyLookupsPerMinute: config.unknownKeyLookupsPerMinute, logger });
  await authenticator.start();
  const gateway = await buildGatewayApp({
    config: trustingConfig, database, clock, logger, upstreams, pipeline: assemblePipeline({ authenticator, metering: gatewayMetering, metered: config.metering.enabled }),
  });
  const streams = await buildStreamsApp({
    config: trustingConfig, database, clock, logger, warp, pipeline: assemblePipeline({ authenticator, metering: streamsMetering, metered: config.metering.enabled }),
  });
  await Promise.all([inProcess.ready(), gateway.ready(), streams.ready()]);

  const identity = signedIdentityOf(config, SECRET, clock);
  const routes = new GatewayRoutes(await gatewayRouteDeclarations({ config, database, clock, logger }), config.networks);
  const authz = new AuthzCheck({ pipeline: assemblePipeline({ authenticator, metering: undefined }).pipeline, routes, networkPath: networkRewriter(config), identity, logger });
  const ratelimit = new RateLimitCheck({ pipeline: assemblePipeline({ authenticator, metering: rlsMetering, metered: config.metering.enabled }).pipeline, identity, clock });
  const servers: EnvoyServiceServer[] = [
    await startEnvoyServices({ authz }, { host: '127.0.0.1', port: 0 }, logger),
    await startEnvoyServices({ ratelimit }, { host: '127.0.0.1', port: 0 }, logger),
  ];
  const authzClient = new (authorizationService())(`127.0.0.1:${servers[0]!.port}`, credentials.createInsecure());
  const rlsClient = new (rateLimitService())(`127.0.0.1:${servers[1]!.port}`, credentials.createInsecure());

  /** `envoy.service.auth.v3.Authorization/Check` as Envoy's ext_authz filter sends it. */
  const check = (request: ClientRequest) => {
    const headers = lowerCase({ host: 'localhost:80', ...request.headers });
    return unary<CheckResponse>(authzClient, 'Check', {
      attributes: {
        source: { address: { socket_address: { address: request.remoteAddress ?? '127.0.0.1', port_value: 50_000 } } },
        request: {
          http: {
            id: '1',
            method: request.method ?? 'GET',
            headers: { ':authority': headers.host, ':method': request.method ?? 'GET', ':path': request.url, ...headers },
            path: request.url,
            host: headers.host,
            scheme: 'http',
            protocol: 'HTTP/1.1',
          },
        },
      },
    });
  };

  /** `RateLimitService/ShouldRateLimit` with the descriptor Envoy builds from DESCRIPTOR_KEYS' actions. */
  const shouldRateLimit = (identityToken: string | undefined, remoteAddress: string) => {
    const entries: { key: string; value: string }[] = [{ key: DESCRIPTOR_KEYS.remoteAddress.key, value: remoteAddress }];
    // request_headers with skip_if_absent: no token, no entry.
    if (identityToken !== undefined) entries.unshift({ key: DESCRIPTOR_KEYS.identity.key, value: identityToken });
    return unary<RateLimitResponse>(rlsClient, 'ShouldRateLimit', { domain: 'suigw', descriptors: [{ entries }], hits_addend: 1 });
  };

  async function viaEnvoy(request: ClientRequest): Promise<ClientAnswer> {
    const remoteAddress = request.remoteAddress ?? '127.0.0.1';
    const decision = await check(request);
    if (decision.denied_response) {
      const denied = decision.denied_response;
      return { status: denied.status.code, headers: pick(fromOptions(denied.headers)), body: JSON.parse(denied.body) };
    }
    const headers = lowerCase({ ...request.headers });
    for (const name of decision.ok_response?.headers_to_remove ?? []) delete headers[name];
    Object.assign(headers, fromOptions(decision.ok_response?.headers ?? []));
    // Forwarded without the key: the gateway must answer from the identity token alone, so every
    // answer below proves the trusted path (a token it refused would make it a 401).
    if (headers[IDENTITY_HEADERS.token] !== undefined) {
      delete headers['x-api-key'];
      delete headers.authorization;
    }
    const limit = await shouldRateLimit(headers[IDENTITY_HEADERS.token], remoteAddress);
    if (limit.overall_code === 2) {
      const added = Object.fromEntries(limit.response_headers_to_add.map((h) => [h.key, h.value]));
      return { status: 429, headers: pick(added), body: JSON.parse(Buffer.from(limit.raw_body ?? []).toString('utf8')) };
    }
    // Envoy's route table: the `/v1/warp/` prefix goes to the streams role, the rest to the gateway.
    const upstreamRole = WARP_PATH.test(request.url) ? streams : gateway;
    return answerOf(await upstreamRole.inject({ method: (request.method ?? 'GET') as 'GET', url: request.url, headers, remoteAddress }));
  }

  async function direct(app: App, request: ClientRequest): Promise<ClientAnswer> {
    return answerOf(await app.inject({ method: (request.method ?? 'GET') as 'GET', url: request.url, headers: request.headers ?? {}, remoteAddress: request.remoteAddress ?? '127.0.0.1' }));
  }

  async function newCaller(options: { tier?: Tier; rateLimit?: Partial<KeyRateLimit>; prepaidMicroUsd?: bigint; scopes?: Scope[]; allowedOrigins?: string[]; network?: 'mainnet' | 'testnet' } = {}): Promise<Caller> {
    const { organization, projects } = await createOrganization(database.db, clock, {
      name: 'Envoy',
      tier: options.tier ?? 'team',
      projects: [{ name: 'Default', network: options.network ?? 'mainnet' }],
    });
    if (options.prepaidMicroUsd !== undefined) {
      await database.db.updateTable('organizations').set({ prepaid_micro_usd: options.prepaidMicroUsd }).where('id', '=', organization.id).execute();
    }
    const key = await createKey(database, clock, { kind: 'operator' }, {
      organizationId: organization.id,
      projectId: projects[0]!.id,
      name: 'k',
      scopes: options.scopes ?? ALL_SCOPES,
      allowedOrigins: options.allowedOrigins,
      expiresInDays: 30,
      rateLimit: options.rateLimit,
    });
    return { organizationId: organization.id, key: key.apiKey, keyId: key.id };
  }

  /**
   * What one usage interval does in every process: usage written (each ledger reconciles after
   * its flush), and the ratelimit service's periodic re-read of the credit totals.
   */
  async function sync(): Promise<void> {
    await Promise.all([inProcessPipeline.metering!.usage.flush(), gatewayMetering.usage.flush(), streamsMetering.usage.flush(), rlsMetering.usage.flush()]);
    await rlsMetering.ledger.reconcile([]);
  }

  /** Writes every process's usage to PostgreSQL and returns an organization's requests and credits. */
  async function charged(organizationId: string): Promise<{ requests: number; credits: number }> {
    await sync();
    const row = await database.db
      .selectFrom('usage_minutes')
      .select((eb) => [eb.fn.coalesce(eb.fn.sum<string>('requests'), eb.lit(0)).as('requests'), eb.fn.coalesce(eb.fn.sum<string>('credits'), eb.lit(0)).as('credits')])
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return { requests: Number(row.requests), credits: Number(row.credits) };
  }

  return {
    clock,
    config,
    database,
    fake,
    identity,
    authzPort: servers[0]!.port,
    rlsPort: servers[1]!.port,
    inProcess,
    gateway,
    check,
    shouldRateLimit,
    viaEnvoy,
    inProcessAnswer: (request: ClientRequest) => direct(inProcess, request),
    gatewayAnswer: (request: ClientRequest) => direct(gateway, request),
    newCaller,
    sync,
    charged,
    async close() {
      authzClient.close();
      rlsClient.close();
      for (const server of servers) await server.close();
      await authenticator.stop();
      await inProcess.close();
      await inProcessPipeline.close();
      await gateway.close();
      await streams.close();
      await gatewayMetering.close();
      await streamsMetering.close();
      await warp.close();
      await rlsMetering.close();
      await upstream.close();
      await fake.stop();
      await db?.drop();
    },
  };
}

export type EnvoyStack = Awaited<ReturnType<typeof startEnvoyStack>>;

function meteringOf(limiter: MemoryRateLimiter, database: TestDatabase['database'], clock: ManualClock, logger: ReturnType<typeof createLogger>): Metering {
  const ledger = new CreditLedger({ db: database.db, clock, logger });
  const usage = new UsageRecorder({ db: database.db, clock, logger, flushIntervalMs: 60_000, onFlushed: (written) => ledger.reconcile(written) });
  return { meter: new Meter({ limiter, ledger, usage }), limiter, ledger, usage, close: () => usage.close() };
}

/** One unary call on a grpc-js client made from Envoy's protos. */
export function unary<Response>(client: Client, method: string, request: unknown): Promise<Response> {
  return new Promise((resolve, reject) => {
    (client as unknown as Record<string, (r: unknown, cb: (e: Error | null, v: Response) => void) => void>)[method]!(request, (error, value) =>
      error ? reject(error) : resolve(value),
    );
  });
}

export function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** Envoy's HeaderValueOption list as a plain header map. */
export function fromOptions(options: { header: { key: string; value: string } }[]): Record<string, string> {
  return Object.fromEntries(options.map((option) => [option.header.key, option.header.value]));
}

const COMPARED = [
  'content-type', 'x-request-id', 'retry-after',
  'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-svc-credit-remaining', 'x-svc-credit-replenish-date',
  'access-control-allow-origin', 'access-control-expose-headers', 'vary',
];

function answerOf(response: { statusCode: number; headers: Record<string, unknown>; body: string }): ClientAnswer {
  let body: unknown = response.body;
  try {
    body = JSON.parse(response.body);
  } catch {
    // Not JSON: compared as text.
  }
  return { status: response.statusCode, headers: pick(response.headers), body };
}

/** The headers the spec defines for an answer (the rest is transport detail that may differ). */
export function pick(headers: Record<string, unknown>): Record<string, string | undefined> {
  return Object.fromEntries(COMPARED.map((name) => [name, headers[name] === undefined ? undefined : String(headers[name])]));
}
