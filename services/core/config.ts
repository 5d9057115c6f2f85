import { z } from 'zod';
import { containerResourcesSetting, type ContainerResources } from './container-resources.js';
import { isEd25519SuiPrivateKey } from './sui-private-key.js';
import { KEY_VALUE_PATTERN } from './schemas.js';
import type { TrustProxy } from './client-address.js';

/**
 * The one configuration schema. Every setting is one environment variable with a default that
 * works for `suigw dev`; nothing else in the code base reads `process.env`.
 */

export const NETWORKS = ['mainnet', 'testnet', 'devnet'] as const;

/** The zkLogin issuers the spec accepts, as exact `iss` strings. */
export const ZKLOGIN_ISSUERS = ['https://accounts.google.com', 'https://appleid.apple.com', 'https://id.twitch.tv/oauth2', 'https://www.facebook.com'] as const;
export type Network = (typeof NETWORKS)[number];

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const optionalUrl = optionalString.pipe(z.url().optional());
/**
 * An upstream endpoint's URL. A user name or password in it would never reach the node: Node's
 * fetch refuses such a URL for GraphQL (and quotes it, secret included, in its error), and the
 * gRPC channel dials the host alone. So it is refused here, at start-up, not at the first call.
 */
const upstreamUrl = optionalUrl.refine((value) => {
  const url = value !== undefined && URL.canParse(value) ? new URL(value) : undefined;
  return url === undefined || (url.username === '' && url.password === '');
}, {
  message: 'must not carry a user name or password (scheme://user:password@host): the gateway does not send URL credentials upstream',
});

const suiAddress = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const billingNetworkSchema = z.strictObject({ packageId: suiAddress, configId: suiAddress, usdcType: z.string().regex(/^0x[0-9a-fA-F]{64}::\w+::\w+$/), treasury: suiAddress });

const networkList = z
  .string()
  .default('mainnet,testnet')
  .transform((value) => value.split(',').map((n) => n.trim()).filter(Boolean))
  .pipe(z.array(z.enum(NETWORKS)).min(1));

const TRUE_WORDS = ['true', '1', 'yes'] as const;
const FALSE_WORDS = ['false', '0', 'no'] as const;

/**
 * The one reading of a yes/no word, for settings and command-line flags alike: true, 1, yes or
 * false, 0, no; anything else is undefined (the caller says what it expected).
 */
export function parseBoolean(text: string): boolean | undefined {
  if ((TRUE_WORDS as readonly string[]).includes(text)) return true;
  if ((FALSE_WORDS as readonly string[]).includes(text)) return false;
  return undefined;
}

/** A yes/no setting; unset or empty means `fallback`. */
const booleanSetting = (fallback: boolean) => z
  .enum([...TRUE_WORDS, ...FALSE_WORDS, ''])
  .optional()
  .transform((value) => (value === undefined || value === '' ? fallback : parseBoolean(value)!));
const boolean = booleanSetting(false);

/** The most proxy hops SUIGW_TRUST_PROXY takes: Envoy plus the 16 proxies its xff_num_trusted_hops takes in front of it. */
export const MAX_TRUSTED_PROXY_HOPS = 17;

/**
 * SUIGW_TRUST_PROXY: trusted proxy hops in front of the process (services/core/client-address.ts).
 * A number; false, no or unset: 0; true or yes: every hop (deprecated: the leftmost
 * X-Forwarded-For entry, the client's own behind an appending proxy). `1` is one hop (it read as
 * `true` before): behind one proxy both give the address that proxy saw unless the client sent
 * its own X-Forwarded-For, which one hop ignores.
 */
const trustProxySetting = z
  .string()
  .optional()
  .transform((value, ctx): TrustProxy => {
    const text = value?.trim() ?? '';
    if (text === '' || text === 'false' || text === 'no') return 0;
    if (text === 'true' || text === 'yes') return true;
    const hops = /^\d+$/.test(text) ? Number(text) : NaN;
    if (hops <= MAX_TRUSTED_PROXY_HOPS) return hops;
    ctx.addIssue({ code: 'custom', message: `expected the number of trusted proxy hops (0-${MAX_TRUSTED_PROXY_HOPS}), or false (0) or true (every hop, deprecated)` });
    return z.NEVER;
  });

export const ENV_SCHEMA = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  SUIGW_METRICS_PORT: z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)], { error: 'expected a port number (0-65535) or off' }).default(9464),
  SUIGW_METRICS_HOST: optionalString,
  SUIGW_WORKERS: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)], { error: 'expected auto or a number of processes (1-64)' }).default('auto'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SUIGW_LOG_SLOW_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  SUIGW_LOG_SAMPLE_RATE: z.coerce.number().min(0).max(1).default(0),
  // A scheme check, so a typo is one line at start-up instead of a DNS error's stack trace (PostgreSQL)
  // or a limiter that silently fails open on every request (Redis).
  DATABASE_URL: optionalString.pipe(z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'expected a postgres:// or postgresql:// URL').optional()),
  REDIS_URL: optionalString.pipe(z.string().regex(/^rediss?:\/\/\S+$/, 'expected a redis:// or rediss:// URL').optional()),
  SUIGW_DATA_DIR: z.string().default('.suigw'),
  SUIGW_PUBLIC_URL: optionalUrl,
  SUIGW_NETWORKS: networkList,
  SUIGW_MAINNET_HOST: optionalString,
  SUIGW_TESTNET_HOST: optionalString,
  SUIGW_DEVNET_HOST: optionalString,
  SUI_MAINNET_GRPC_URL: upstreamUrl,
  SUI_MAINNET_GRAPHQL_URL: upstreamUrl,
  SUI_TESTNET_GRPC_URL: upstreamUrl,
  SUI_TESTNET_GRAPHQL_URL: upstreamUrl,
  SUI_DEVNET_GRPC_URL: upstreamUrl,
  SUI_DEVNET_GRAPHQL_URL: upstreamUrl,
  SUIGW_SECRET: optionalString.pipe(z.string().min(32).optional()),
  SUIGW_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  // The identity layer's UNKNOWN_KEY_LOOKUPS_PER_MINUTE (services/identity/unknown-key-budget.ts).
  SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  SUIGW_DEV_ADMIN_KEY: optionalString.pipe(z.string().regex(KEY_VALUE_PATTERN, 'expected svc_pat_ followed by 32 to 120 base58 characters').optional()),
  SUIGW_CATALOG_SIMNET_NETWORKS: z.string().default('')
    .transform((value) => value.split(',').map((n) => n.trim()).filter(Boolean))
    .pipe(z.array(z.enum(NETWORKS))),
  SUIGW_WALLET_MIN_PREPAID_USD: z.coerce.number().min(0).default(5),
  SUIGW_TRUST_PROXY: trustProxySetting,
  SUIGW_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  SUIGW_UPSTREAM_DEADLINE_MS: z.coerce.number().int().min(50).max(120_000).default(5_000),
  SUIGW_UPSTREAM_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().min(50).max(120_000).default(2_500),
  SUIGW_UPSTREAM_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  SUIGW_UPSTREAM_BREAKER_THRESHOLD: z.coerce.number().int().min(1).max(1_000).default(5),
  SUIGW_UPSTREAM_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  SUIGW_UPSTREAM_PROBE_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  SUIGW_UPSTREAM_GRPC_TRANSPORT: z.enum(['h2', 'grpc-js']).default('h2'),
  SUIGW_CURSOR_MAX_AGE_SECONDS: z.coerce.number().int().min(60).max(7 * 86_400).default(3_600),
  SUIGW_VERIFIED_COIN_TYPES: z.string().default('').transform((value) => value.split(',').map((t) => t.trim()).filter(Boolean)),
  SUIGW_PRICES: z.string().default('{}').transform((value, ctx) => {
    try {
      return z.record(z.string(), z.number().nonnegative()).parse(JSON.parse(value));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object {"<coinType>": usd}' });
      return z.NEVER;
    }
  }),
  SUIGW_PRICE_FEED_URL: optionalUrl,
  SUIGW_REST_STATS_CHECKPOINTS: z.coerce.number().int().min(1).max(200).default(20),
  // JSON-RPC's kept upstream reads, per network (services/jsonrpc/read-cache.ts).
  SUIGW_JSONRPC_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  SUIGW_JSONRPC_CACHE_MAX_BYTES: z.coerce.number().int().min(1024).max(4 * 1024 ** 3).default(32 * 1024 ** 2),
  SUIGW_JSONRPC_CACHE_MUTABLE_TTL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  // jsonrpsee's default; a Sui node's 2 GiB (2 << 30) is the most (docs/jsonrpc.md, Response size).
  SUIGW_JSONRPC_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).max(2 * 1024 ** 3).default(10 * 1024 ** 2),
  // What one organization holds on the JSON-RPC WebSockets of one process (docs/jsonrpc.md, Subscriptions).
  SUIGW_JSONRPC_WS_MAX_SOCKETS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1_000_000).default(16),
  SUIGW_JSONRPC_WS_MAX_SUBSCRIPTIONS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1_000_000).default(256),
  // HTTP edges: every phase of a connection is bounded, and load is shed before the loop drowns.
  SUIGW_HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  SUIGW_HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  SUIGW_HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  SUIGW_HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(72_000),
  SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  SUIGW_SHED_MAX_HEAP_PERCENT: z.coerce.number().int().min(0).max(100).default(90),
  SUIGW_USAGE_FLUSH_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  SUIGW_REDIS_KEY_PREFIX: z.string().default('suigw:rl:'),
  SUIGW_RATE_LIMIT_TIMEOUT_MS: z.coerce.number().int().min(5).max(10_000).default(100),
  SUIGW_RATE_LIMIT_LEASE_MS: z.coerce.number().int().min(0).max(1_000).default(20),
  SUIGW_PLANS_FILE: optionalString,
  SUIGW_METERING: z.enum(['on', 'off']).default('on'),
  // zkLogin (services/zklogin, docs/zklogin.md).
  SUIGW_ZKLOGIN_ENABLED: booleanSetting(true),
  SUIGW_ZKLOGIN_ISSUER_JWKS: z.string().default('{}').transform((value, ctx) => {
    try {
      return z.partialRecord(z.enum(ZKLOGIN_ISSUERS), z.url()).parse(JSON.parse(value));
    } catch {
      ctx.addIssue({ code: 'custom', message: `expected a JSON object {"<issuer>": "<JWKS URL>"}, issuers among ${ZKLOGIN_ISSUERS.join(', ')}` });
      return z.NEVER;
    }
  }),
  SUIGW_ZKLOGIN_SALT_SECRET: optionalString.pipe(z.string().min(32).optional()),
  SUIGW_ZKLOGIN_PROVER_URL: optionalString.pipe(z.union([z.literal('local'), z.url()]).optional()),
  SUIGW_ZKLOGIN_PROVER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  SUIGW_ZKLOGIN_PROVER_SLOTS: z.coerce.number().int().min(1).max(1_000).default(8),
  // Envoy in front (docs/envoy.md): identity headers signed by `suigw authz`.
  SUIGW_TRUST_IDENTITY_HEADERS: boolean,
  SUIGW_IDENTITY_HEADER_MAX_AGE_MS: z.coerce.number().int().min(1_000).max(300_000).default(30_000),
  SUIGW_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(9090),
  SUIGW_GRPC_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(100),
  SUIGW_MAINNET_GRPC_HOST: optionalString,
  SUIGW_TESTNET_GRPC_HOST: optionalString,
  SUIGW_DEVNET_GRPC_HOST: optionalString,
  SUIGW_GRAPHQL_MAX_QUERY_BYTES: z.coerce.number().int().min(256).max(1024 * 1024).default(16 * 1024),
  SUIGW_GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(1_000).default(20),
  SUIGW_GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(10_000).default(50),
  SUIGW_GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  // Webhooks (services/webhooks, docs/webhooks.md).
  SUIGW_WEBHOOK_ALLOW_HTTP: boolean,
  SUIGW_WEBHOOK_ALLOWED_ADDRESSES: z.string().default('').transform((value) => value.split(',').map((entry) => entry.trim()).filter(Boolean))
    .pipe(z.array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], { error: 'expected an IP address or a CIDR block (e.g. 10.0.0.0/8)' }))),
  SUIGW_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  SUIGW_OPERATOR_NAMESPACE: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/).default('suigw'),
  SUIGW_OPERATOR_IDENTITY: optionalString,
  KUBECONFIG: optionalString,
  SUIGW_OPERATOR_IMAGE: z.string().min(1).default('ghcr.io/suigw/suigw:0.1.0'),
  SUIGW_OPERATOR_ENV_SECRET: z.string().regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/).max(253).default('suigw-env'),
  SUIGW_OPERATOR_ENV_CONFIGMAP: optionalString.pipe(z.string().regex(/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/).max(253).optional()),
  SUIGW_OPERATOR_EVENTS_PER_WORKER: z.coerce.number().int().min(1).max(1_000_000).default(500),
  SUIGW_OPERATOR_MAX_STREAM_WORKERS: z.coerce.number().int().min(1).max(1_000).default(10),
  // The chart's `roles.streams.resources`, which runs the same `suigw streams`.
  SUIGW_OPERATOR_STREAMS_RESOURCES: containerResourcesSetting({ requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } }),
  // One pass of one organization, then exit: `suigw billing` peaked at 174 MB resident against
  // PostgreSQL when measured (run from source, tsx included), so 384Mi leaves it room.
  SUIGW_OPERATOR_BILLING_RESOURCES: containerResourcesSetting({ requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '384Mi' } }),
  // On-chain billing (services/billing, docs/billing.md).
  SUIGW_BILLING_NETWORKS: z.string().default('{}').transform((value, ctx) => {
    try {
      return z.partialRecord(z.enum(NETWORKS), billingNetworkSchema).parse(JSON.parse(value));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object {"<network>": {"packageId", "configId", "usdcType", "treasury"}}' });
      return z.NEVER;
    }
  }),
  // A secret: the issue names the variable, never the value.
  SUIGW_BILLING_SPONSOR_KEY: optionalString.pipe(z.string().refine(isEd25519SuiPrivateKey, 'expected an ED25519 private key in Sui\'s bech32 form (suiprivkey1…)').optional()),
  SUIGW_BILLING_ORGANIZATION: optionalString,
  SUIGW_SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional()),
  SUIGW_BILLING_EMAIL_FROM: z.string().default('suigw billing <billing@suigw.invalid>'),
  SUIGW_BILLING_OUTBOX: optionalString,
});

export interface NetworkEndpoint {
  /** Host name that selects this network (production); unset in dev, where a path prefix does. */
  host: string | undefined;
  grpcUrl: string | undefined;
  graphqlUrl: string | undefined;
}

export interface Config {
  port: number;
  host: string;
  /** `/metrics` on a listener of its own; undefined when SUIGW_METRICS_PORT=off. */
  metrics: { port: number; host: string } | undefined;
  /** Processes serving one port (gateway, grpc, authz, ratelimit); 'auto': services/cli/workers.ts. */
  workers: number | 'auto';
  logLevel: z.infer<typeof ENV_SCHEMA>['LOG_LEVEL'];
  /** Which requests are logged (request logging is otherwise off): slow ones and a sample. */
  requestLog: Readonly<{ slowMs: number; sampleRate: number }>;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  dataDir: string;
  publicUrl: string | undefined;
  networks: readonly Network[];
  endpoints: Readonly<Record<Network, NetworkEndpoint>>;
  /**
   * The server secret, source of every per-purpose subkey (`secrets.ts`). Required by `suigw
   * gateway`; `suigw dev` persists one; embedded uses (tests) get a random one per process.
   */
  secret: string | undefined;
  keyCacheTtlMs: number;
  unknownKeyLookupsPerMinute: number;
  devAdminKey: string | undefined;
  /** Networks whose upstream is simnet: their catalog lists simnet's stand-in protocols (`/v1/catalog/*`). */
  catalogSimnetNetworks: readonly Network[];
  walletMinPrepaidMicroUsd: bigint;
  /** Trusted proxy hops in front of the process: who the visitor is (services/core/client-address.ts). */
  trustProxy: TrustProxy;
  /**
   * Envoy in front: identity headers carrying a valid HMAC (from `suigw authz`) stand for the
   * caller; otherwise they are stripped and the key is checked in-process (docs/envoy.md).
   */
  identityHeaders: Readonly<{ trusted: boolean; maxAgeMs: number }>;
  bodyLimitBytes: number;
  /**
   * The gRPC proxy: its port (`suigw grpc`; the first of one port per network in `suigw dev`)
   * and the host name that selects each network (the authority a client dials).
   */
  grpc: Readonly<{ port: number; maxConnectionsPerIp: number; hosts: Readonly<Record<Network, string | undefined>> }>;
  /** Guard rails of the GraphQL pass-through, checked before a query is forwarded. */
  graphql: Readonly<{ maxQueryBytes: number; maxDepth: number; maxAliases: number; maxComplexity: number }>;
  /** Deadlines, retries and circuit breaker of every upstream call. */
  upstream: {
    deadlineMs: number;
    attemptTimeoutMs: number;
    retries: number;
    breakerFailureThreshold: number;
    breakerCooldownMs: number;
    /** How often each upstream is probed for `/health` (requests never trigger a probe). */
    probeIntervalMs: number;
    grpcTransport: 'h2' | 'grpc-js';
  };
  /** The REST data plane. */
  rest: {
    cursorMaxAgeSeconds: number;
    verifiedCoinTypes: string[];
    prices: Record<string, number>;
    priceFeedUrl: string | undefined;
    statsCheckpoints: number;
  };
  /** The JSON-RPC gateway: its cache of upstream reads, per network (docs/jsonrpc.md, Caches), and its answers' size bound. */
  jsonrpc: {
    cache: Readonly<{ maxEntries: number; maxBytes: number; mutableTtlMs: number }>;
    maxResponseBytes: number;
    /** Per organization, over the WebSockets of /v1/jsonrpc of this process. */
    webSocket: Readonly<{ maxSocketsPerOrganization: number; maxSubscriptionsPerOrganization: number }>;
  };
  /** Timeouts of each phase of an HTTP connection (Node's server settings). */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  /** Load shedding: 503 SERVICE_OVERLOADED past these thresholds (0 switches one off). */
  shedding: {
    maxEventLoopDelayMs: number;
    maxHeapPercent: number;
  };
  /** Rate limits, credits and usage (services/metering). */
  metering: {
    /** Off: no limit stage, no credits, no usage, no rate-limit headers (private deployments; benchmarks). */
    enabled: boolean;
    usageFlushMs: number;
    redisKeyPrefix: string;
    /** A Redis decision slower than this allows the request (fail open). */
    rateLimitTimeoutMs: number;
    /** Organization-rate lease window of the Redis limiter; 0: one Redis decision per request. */
    rateLimitLeaseMs: number;
    /** A deployment's own plans file (JSON, the shape of plans/plans.v1.ts); unset: the built-in plans. */
    plansFile: string | undefined;
  };
  /** zkLogin (services/zklogin): issuer keys, salt master, prover. */
  zklogin: {
    enabled: boolean;
    /** Issuer → JWKS URL overrides (the real issuers' URLs otherwise). */
    issuerJwks: Readonly<Partial<Record<(typeof ZKLOGIN_ISSUERS)[number], string>>>;
    /** Master secret of the user salts; derived from `secret` when unset. */
    saltSecret: string | undefined;
    /** Mysten's prover service URL, `local` (the local prover, proofs that do not verify on chain), or unset (no prover). */
    proverUrl: string | undefined;
    proverTimeoutMs: number;
    /** Proofs in flight per process; past it 503 PROVER_BUSY. */
    proverSlots: number;
  };
  /** Outbound webhook deliveries (services/webhooks, docs/webhooks.md). */
  webhooks: {
    /** Accept `http://` endpoint URLs (`suigw dev` turns it on); otherwise HTTPS only. */
    allowHttp: boolean;
    /** Private, loopback or link-local addresses (IPs or CIDRs) deliveries may reach anyway; every other non-public address is refused. */
    allowedAddresses: readonly string[];
    /** Deadline of one delivery attempt, connection to response headers and the capped body. */
    timeoutMs: number;
  };
  /** On-chain billing (services/billing, docs/billing.md). */
  billing: {
    /** Per network: the billing app's package, its BillingConfig object, USDC's coin type, the treasury. */
    networks: Readonly<Partial<Record<Network, Readonly<{ packageId: string; configId: string; usdcType: string; treasury: string }>>>>;
    /** The sponsor key (`suiprivkey1…`): the allowances' spender, signs charges and pays their gas. A secret: never logged. */
    sponsorKey: string | undefined;
    /** `suigw billing` for one organization only (the OnchainPlan CronJob sets it). */
    organizationId: string | undefined;
    /** SMTP server of the billing emails; unset: emails go to the outbox file. */
    smtpUrl: string | undefined;
    emailFrom: string;
    /** The outbox file when SMTP is not set (default `<SUIGW_DATA_DIR>/billing-outbox.jsonl`). */
    outboxPath: string;
  };
  /** The Kubernetes operator (operator, docs/kubernetes.md). */
  operator: {
    namespace: string;
    /** This replica's name in the leader Lease; unset: the host name (the pod's name). */
    identity: string | undefined;
    /** Kubeconfig files (KUBECONFIG, separated as PATH is); unset: ~/.kube/config, else the pod's service account. */
    kubeconfig: string | undefined;
    image: string;
    /** The Secret the stream workers and billing CronJobs it creates take their environment from. */
    envSecret: string;
    /** The ConfigMap of their other environment (the chart's `config.env`); unset: none. */
    envConfigMap: string | undefined;
    eventsPerWorker: number;
    maxStreamWorkers: number;
    /** The `resources` of a stream worker's container and of a billing Job's. */
    streamsResources: ContainerResources;
    billingResources: ContainerResources;
  };
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n  ${issues.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * A network's upstream is its gRPC and its GraphQL endpoint together (the gateway reads both);
 * one set without the other left the network silently without an upstream (404
 * NETWORK_NOT_CONFIGURED on every data call), so it is refused here, naming the missing one.
 */
function halfConfiguredUpstreams(v: z.infer<typeof ENV_SCHEMA>): string[] {
  return NETWORKS.flatMap((network) => {
    const names = upstreamVariables(network);
    const grpcUrl = v[names.grpc];
    const graphqlUrl = v[names.graphql];
    if ((grpcUrl === undefined) === (graphqlUrl === undefined)) return [];
    const [missing, set] = grpcUrl === undefined ? [names.grpc, names.graphql] : [names.graphql, names.grpc];
    return [`${missing}: required with ${set} (a network's upstream is its gRPC and its GraphQL endpoint; with one alone it has none)`];
  });
}

/** The settings that name a network's upstream. */
export function upstreamVariables(network: Network) {
  const prefix = `SUI_${network.toUpperCase() as Uppercase<Network>}` as const;
  return { grpc: `${prefix}_GRPC_URL`, graphql: `${prefix}_GRAPHQL_URL` } as const;
}

/**
 * The environment with settings set to nothing (`PORT=`, an empty value in a chart's `config.env`)
 * left out: an empty setting is an unset one, whatever its type. Before, a number read `''` as 0:
 * `SUIGW_METRICS_PORT=` served metrics on a random port, `SUIGW_KEY_CACHE_TTL_MS=` turned the key
 * cache off.
 */
function withoutEmptySettings(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value === undefined || value.trim() !== ''));
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<Config> {
  const parsed = ENV_SCHEMA.safeParse(withoutEmptySettings(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const v = parsed.data;
  const halfConfigured = halfConfiguredUpstreams(v);
  if (halfConfigured.length > 0) throw new ConfigError(halfConfigured);
  const endpoint = (host: string | undefined, grpcUrl: string | undefined, graphqlUrl: string | undefined) => ({
    host: host?.toLowerCase(),
    grpcUrl,
    graphqlUrl,
  });
  return Object.freeze({
    port: v.PORT,
    host: v.HOST,
    metrics: v.SUIGW_METRICS_PORT === 'off' ? undefined : Object.freeze({ port: v.SUIGW_METRICS_PORT, host: v.SUIGW_METRICS_HOST ?? v.HOST }),
    workers: v.SUIGW_WORKERS,
    logLevel: v.LOG_LEVEL,
    requestLog: Object.freeze({ slowMs: v.SUIGW_LOG_SLOW_MS, sampleRate: v.SUIGW_LOG_SAMPLE_RATE }),
    databaseUrl: v.DATABASE_URL,
    redisUrl: v.REDIS_URL,
    dataDir: v.SUIGW_DATA_DIR,
    publicUrl: v.SUIGW_PUBLIC_URL?.replace(/\/+$/, ''),
    networks: Object.freeze([...new Set(v.SUIGW_NETWORKS)]),
    endpoints: Object.freeze({
      mainnet: endpoint(v.SUIGW_MAINNET_HOST, v.SUI_MAINNET_GRPC_URL, v.SUI_MAINNET_GRAPHQL_URL),
      testnet: endpoint(v.SUIGW_TESTNET_HOST, v.SUI_TESTNET_GRPC_URL, v.SUI_TESTNET_GRAPHQL_URL),
      devnet: endpoint(v.SUIGW_DEVNET_HOST, v.SUI_DEVNET_GRPC_URL, v.SUI_DEVNET_GRAPHQL_URL),
    }),
    secret: v.SUIGW_SECRET,
    keyCacheTtlMs: v.SUIGW_KEY_CACHE_TTL_MS,
    unknownKeyLookupsPerMinute: v.SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE,
    devAdminKey: v.SUIGW_DEV_ADMIN_KEY,
    catalogSimnetNetworks: Object.freeze([...new Set(v.SUIGW_CATALOG_SIMNET_NETWORKS)]),
    walletMinPrepaidMicroUsd: BigInt(Math.round(v.SUIGW_WALLET_MIN_PREPAID_USD * 1_000_000)),
    trustProxy: v.SUIGW_TRUST_PROXY,
    identityHeaders: Object.freeze({ trusted: v.SUIGW_TRUST_IDENTITY_HEADERS, maxAgeMs: v.SUIGW_IDENTITY_HEADER_MAX_AGE_MS }),
    bodyLimitBytes: v.SUIGW_BODY_LIMIT_BYTES,
    grpc: Object.freeze({
      port: v.SUIGW_GRPC_PORT,
      maxConnectionsPerIp: v.SUIGW_GRPC_MAX_CONNECTIONS_PER_IP,
      hosts: Object.freeze({ mainnet: v.SUIGW_MAINNET_GRPC_HOST, testnet: v.SUIGW_TESTNET_GRPC_HOST, devnet: v.SUIGW_DEVNET_GRPC_HOST }),
    }),
    graphql: Object.freeze({
      maxQueryBytes: v.SUIGW_GRAPHQL_MAX_QUERY_BYTES,
      maxDepth: v.SUIGW_GRAPHQL_MAX_DEPTH,
      maxAliases: v.SUIGW_GRAPHQL_MAX_ALIASES,
      maxComplexity: v.SUIGW_GRAPHQL_MAX_COMPLEXITY,
    }),
    upstream: Object.freeze({
      deadlineMs: v.SUIGW_UPSTREAM_DEADLINE_MS,
      attemptTimeoutMs: Math.min(v.SUIGW_UPSTREAM_ATTEMPT_TIMEOUT_MS, v.SUIGW_UPSTREAM_DEADLINE_MS),
      retries: v.SUIGW_UPSTREAM_RETRIES,
      breakerFailureThreshold: v.SUIGW_UPSTREAM_BREAKER_THRESHOLD,
      breakerCooldownMs: v.SUIGW_UPSTREAM_BREAKER_COOLDOWN_MS,
      probeIntervalMs: v.SUIGW_UPSTREAM_PROBE_INTERVAL_MS,
      grpcTransport: v.SUIGW_UPSTREAM_GRPC_TRANSPORT,
    }),
    rest: Object.freeze({
      cursorMaxAgeSeconds: v.SUIGW_CURSOR_MAX_AGE_SECONDS,
      verifiedCoinTypes: v.SUIGW_VERIFIED_COIN_TYPES,
      prices: v.SUIGW_PRICES,
      priceFeedUrl: v.SUIGW_PRICE_FEED_URL,
      statsCheckpoints: v.SUIGW_REST_STATS_CHECKPOINTS,
    }),
    jsonrpc: Object.freeze({
      cache: Object.freeze({
        maxEntries: v.SUIGW_JSONRPC_CACHE_MAX_ENTRIES,
        maxBytes: v.SUIGW_JSONRPC_CACHE_MAX_BYTES,
        mutableTtlMs: v.SUIGW_JSONRPC_CACHE_MUTABLE_TTL_MS,
      }),
      maxResponseBytes: v.SUIGW_JSONRPC_MAX_RESPONSE_BYTES,
      webSocket: Object.freeze({
        maxSocketsPerOrganization: v.SUIGW_JSONRPC_WS_MAX_SOCKETS_PER_ORGANIZATION,
        maxSubscriptionsPerOrganization: v.SUIGW_JSONRPC_WS_MAX_SUBSCRIPTIONS_PER_ORGANIZATION,
      }),
    }),
    http: Object.freeze({
      // Node refuses a headers timeout above the whole-request timeout.
      headersTimeoutMs: Math.min(v.SUIGW_HTTP_HEADERS_TIMEOUT_MS, v.SUIGW_HTTP_REQUEST_TIMEOUT_MS),
      requestTimeoutMs: v.SUIGW_HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: v.SUIGW_HTTP_IDLE_TIMEOUT_MS,
      keepAliveTimeoutMs: v.SUIGW_HTTP_KEEP_ALIVE_TIMEOUT_MS,
    }),
    shedding: Object.freeze({
      maxEventLoopDelayMs: v.SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS,
      maxHeapPercent: v.SUIGW_SHED_MAX_HEAP_PERCENT,
    }),
    metering: Object.freeze({
      enabled: v.SUIGW_METERING === 'on',
      usageFlushMs: v.SUIGW_USAGE_FLUSH_MS,
      redisKeyPrefix: v.SUIGW_REDIS_KEY_PREFIX,
      rateLimitTimeoutMs: v.SUIGW_RATE_LIMIT_TIMEOUT_MS,
      rateLimitLeaseMs: v.SUIGW_RATE_LIMIT_LEASE_MS,
      plansFile: v.SUIGW_PLANS_FILE,
    }),
    zklogin: Object.freeze({
      enabled: v.SUIGW_ZKLOGIN_ENABLED,
      issuerJwks: Object.freeze({ ...v.SUIGW_ZKLOGIN_ISSUER_JWKS }),
      saltSecret: v.SUIGW_ZKLOGIN_SALT_SECRET,
      proverUrl: v.SUIGW_ZKLOGIN_PROVER_URL,
      proverTimeoutMs: v.SUIGW_ZKLOGIN_PROVER_TIMEOUT_MS,
      proverSlots: v.SUIGW_ZKLOGIN_PROVER_SLOTS,
    }),
    webhooks: Object.freeze({
      allowHttp: v.SUIGW_WEBHOOK_ALLOW_HTTP,
      allowedAddresses: Object.freeze([...v.SUIGW_WEBHOOK_ALLOWED_ADDRESSES]),
      timeoutMs: v.SUIGW_WEBHOOK_TIMEOUT_MS,
    }),
    billing: Object.freeze({
      networks: Object.freeze({ ...v.SUIGW_BILLING_NETWORKS }),
      sponsorKey: v.SUIGW_BILLING_SPONSOR_KEY,
      organizationId: v.SUIGW_BILLING_ORGANIZATION,
      smtpUrl: v.SUIGW_SMTP_URL,
      emailFrom: v.SUIGW_BILLING_EMAIL_FROM,
      outboxPath: v.SUIGW_BILLING_OUTBOX ?? `${v.SUIGW_DATA_DIR}/billing-outbox.jsonl`,
    }),
    operator: Object.freeze({
      namespace: v.SUIGW_OPERATOR_NAMESPACE,
      identity: v.SUIGW_OPERATOR_IDENTITY,
      kubeconfig: v.KUBECONFIG,
      image: v.SUIGW_OPERATOR_IMAGE,
      envSecret: v.SUIGW_OPERATOR_ENV_SECRET,
      envConfigMap: v.SUIGW_OPERATOR_ENV_CONFIGMAP,
      eventsPerWorker: v.SUIGW_OPERATOR_EVENTS_PER_WORKER,
      maxStreamWorkers: v.SUIGW_OPERATOR_MAX_STREAM_WORKERS,
      streamsResources: v.SUIGW_OPERATOR_STREAMS_RESOURCES,
      billingResources: v.SUIGW_OPERATOR_BILLING_RESOURCES,
    }),
  });
}

/** Documentation of every variable, rendered into the README's configuration table. */
export const CONFIG_DOCS: Record<keyof z.infer<typeof ENV_SCHEMA>, string> = {
  PORT: 'HTTP port of the gateway (default 8080; 0 picks a free port).',
  HOST: 'Interface to listen on (default 127.0.0.1).',
  SUIGW_METRICS_PORT: 'Port of the Prometheus /metrics listener, separate from the public port (default 9464; 0 picks a free port; off disables).',
  SUIGW_METRICS_HOST: 'Interface of the /metrics listener (default: HOST).',
  SUIGW_WORKERS: '`gateway`, `grpc`, `authz`, `ratelimit`: processes sharing the role\'s port (`--workers N` overrides). auto (default): one per core when the role\'s state is shared (DATABASE_URL, and REDIS_URL where it limits), else 1. /metrics sums the workers.',
  LOG_LEVEL: 'pino log level (default info).',
  SUIGW_LOG_SLOW_MS: 'Requests slower than this are logged at warn (default 1000 ms; 0 logs every request). Requests are otherwise not logged, except 5xx answers (at error) and the sample below.',
  SUIGW_LOG_SAMPLE_RATE: 'Share of requests logged at info, 0..1 (default 0: none).',
  DATABASE_URL: 'PostgreSQL URL; unset: embedded PGlite under SUIGW_DATA_DIR (gateway, grpc and streams warn at start-up: no replica shares it).',
  REDIS_URL: 'Redis shared by the roles: the rate limiter\'s counters, and the Warp stream logs, delivery state and connection leases; unset: in-memory limiter and stream log (one process only).',
  SUIGW_DATA_DIR: 'Directory for embedded data and dev state (default .suigw).',
  SUIGW_PUBLIC_URL: 'Public base URL printed in examples (default http://HOST:PORT) and given as the OpenAPI server (default: relative to the document).',
  SUIGW_NETWORKS: 'Networks served, comma separated (default mainnet,testnet; devnet optional).',
  SUIGW_MAINNET_HOST: 'Host name that selects mainnet (production); unset: /mainnet path prefix only.',
  SUIGW_TESTNET_HOST: 'Host name that selects testnet (production); unset: /testnet path prefix only.',
  SUIGW_DEVNET_HOST: 'Host name that selects devnet (production).',
  SUI_MAINNET_GRPC_URL: 'Upstream Sui full node gRPC URL for mainnet, set together with the GraphQL URL (one alone is refused); unset in dev: simnet. No network\'s upstream URL may carry a user name or password (refused at start-up: they would never reach the node).',
  SUI_MAINNET_GRAPHQL_URL: 'Upstream Sui GraphQL URL for mainnet; unset in dev: simnet.',
  SUI_TESTNET_GRPC_URL: 'Upstream Sui full node gRPC URL for testnet, set together with the GraphQL URL (one alone is refused); unset in dev: simnet.',
  SUI_TESTNET_GRAPHQL_URL: 'Upstream Sui GraphQL URL for testnet; unset in dev: simnet.',
  SUI_DEVNET_GRPC_URL: 'Upstream Sui full node gRPC URL for devnet, set together with the GraphQL URL (one alone is refused).',
  SUI_DEVNET_GRAPHQL_URL: 'Upstream Sui GraphQL URL for devnet.',
  SUIGW_SECRET: 'Server secret (32+ chars), the same on every replica: per-purpose keys for cursors, wallet challenges, identity headers, webhook secrets (sealed at rest: the gateway and `suigw streams` must share it) and (unless SUIGW_ZKLOGIN_SALT_SECRET is set) zkLogin salts are derived from it. Required by `suigw gateway` and `suigw streams`; `suigw dev` persists one.',
  SUIGW_KEY_CACHE_TTL_MS: 'How long a verified key stays cached (default 3000 ms; changes also invalidate through NOTIFY).',
  SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE: 'Key lookups per minute and client IP (IPv6: per /64) that may find no key before that client gets 429 RATE_LIMIT_EXCEEDED, per process (default 60); lookups that find a key, and cached answers, cost nothing (docs/operations.md, Unknown keys).',
  SUIGW_CATALOG_SIMNET_NETWORKS: 'Networks served by simnet, comma separated (default none; `suigw dev` sets the networks it runs on simnet): their /v1/catalog lists simnet\'s stand-in protocols besides the Sui framework\'s.',
  SUIGW_DEV_ADMIN_KEY: 'Fixed value for the admin key that `suigw dev` seeds: svc_pat_ followed by 32 to 120 base58 characters (anything else stops it at start-up, exit 2).',
  SUIGW_WALLET_MIN_PREPAID_USD: 'Prepaid balance a wallet organization needs to register a key (default 5).',
  SUIGW_TRUST_PROXY: 'Proxy hops in front of the process to trust (default 0): the client IP every per-IP limit counts (HTTP and gRPC) is the X-Forwarded-For entry that many from the right (1: the socket\'s peer appended it); entries a client sent itself further left are ignored. The chart sets 1 + envoy.trustedProxyHops. false = 0; true (deprecated) trusts every hop: the leftmost entry, which a client can forge behind a proxy that appends.',
  SUIGW_TRUST_IDENTITY_HEADERS: 'Envoy is in front: trust identity headers signed by `suigw authz` (HMAC from SUIGW_SECRET) instead of checking the key again (default false: such headers are stripped). See docs/envoy.md.',
  SUIGW_IDENTITY_HEADER_MAX_AGE_MS: 'Oldest signed identity header accepted (default 30000 ms); older ones are stripped and the key is checked in-process.',
  SUIGW_BODY_LIMIT_BYTES: 'Largest accepted request body (default 1 MiB).',
  SUIGW_UPSTREAM_DEADLINE_MS: 'Time budget of one whole request from its arrival: all its upstream calls, pages, retries and waits for a slot (default 5000 ms); past it: 504 UPSTREAM_TIMEOUT.',
  SUIGW_UPSTREAM_ATTEMPT_TIMEOUT_MS: 'Deadline of one attempt (default 2500 ms, at most the total budget).',
  SUIGW_UPSTREAM_RETRIES: 'Extra attempts of idempotent reads on UNAVAILABLE or a timeout, with full-jitter backoff (default 2).',
  SUIGW_UPSTREAM_BREAKER_THRESHOLD: 'Consecutive upstream transport failures (UNAVAILABLE, timeouts, connect errors, HTTP 502/503/504) that open a breaker group (default 5); node answers such as INVALID_ARGUMENT or INTERNAL never count.',
  SUIGW_UPSTREAM_BREAKER_COOLDOWN_MS: 'How long an open circuit fails fast before one probe call (default 10000 ms).',
  SUIGW_UPSTREAM_GRPC_TRANSPORT: 'What carries the gateway\'s own gRPC calls to the node: `h2` (node:http2 on the connection the gRPC proxy uses) or `grpc-js` (default `h2`); both fail alike (docs/architecture.md, upstream transport).',
  SUIGW_UPSTREAM_PROBE_INTERVAL_MS: 'How often each upstream is probed in the background for /health (default 10000 ms); /health itself never calls an upstream.',
  SUIGW_CURSOR_MAX_AGE_SECONDS: 'Lifetime of REST pagination cursors (default 3600 s); older ones are 400 INVALID_CURSOR.',
  SUIGW_VERIFIED_COIN_TYPES: 'Coin types reported `verified` by /coins/{type}/metadata besides SUI, comma separated.',
  SUIGW_PRICES: 'Fixed USD prices per coin type on mainnet, JSON {"<coinType>": usd} (e.g. stablecoins at 1); other networks get none.',
  SUIGW_PRICE_FEED_URL: 'A JSON price feed {"prices": {"<coinType>": usd}} for mainnet, read at most once a minute.',
  SUIGW_REST_STATS_CHECKPOINTS: 'Latest checkpoints counted by /transactions/stats (default 20).',
  SUIGW_JSONRPC_CACHE_MAX_ENTRIES: 'JSON-RPC read cache: entries kept per network (default 10000; docs/jsonrpc.md, Caches).',
  SUIGW_JSONRPC_CACHE_MAX_BYTES: 'JSON-RPC read cache: bytes of JSON kept per network (default 33554432, 32 MiB); the least recently used go first.',
  SUIGW_JSONRPC_CACHE_MUTABLE_TTL_MS: 'JSON-RPC read cache: how long a read that can change (coin metadata, system packages) is served before it is fetched again (default 60000 ms; 0 keeps none).',
  SUIGW_JSONRPC_WS_MAX_SOCKETS_PER_ORGANIZATION: 'JSON-RPC WebSockets (`GET /v1/jsonrpc`) one organization may have open on one gateway process (default 16); one more upgrade is 429 `CONNECTION_LIMIT_REACHED`.',
  SUIGW_JSONRPC_WS_MAX_SUBSCRIPTIONS_PER_ORGANIZATION: 'JSON-RPC subscriptions one organization may hold over its WebSockets on one gateway process (default 256; 64 per socket); one more is -32602 `TOO_MANY_SUBSCRIPTIONS`.',
  SUIGW_JSONRPC_MAX_RESPONSE_BYTES: 'Largest JSON-RPC answer in bytes, for one call and for a batch\'s whole answer (default 10485760, 10 MiB, jsonrpsee\'s default); larger: -32008 for the call, -32011 for the batch, as jsonrpsee answers.',
  SUIGW_HTTP_HEADERS_TIMEOUT_MS: 'Time a client has to send its request headers (default 10000 ms, at most the request timeout); past it: 408 and the connection closes.',
  SUIGW_HTTP_REQUEST_TIMEOUT_MS: 'Time a client has to send its whole request, body included (default 30000 ms); past it: 408 and the connection closes.',
  SUIGW_HTTP_IDLE_TIMEOUT_MS: 'A connection with no bytes in either direction for this long is closed (default 120000 ms).',
  SUIGW_HTTP_KEEP_ALIVE_TIMEOUT_MS: 'How long an idle keep-alive connection waits for its next request (default 72000 ms, above common load balancer idle timeouts).',
  SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: 'Mean event-loop delay past which requests are shed with 503 SERVICE_OVERLOADED (default 1000 ms; 0 off).',
  SUIGW_SHED_MAX_HEAP_PERCENT: "Heap use, in percent of V8's heap limit, past which requests are shed with 503 SERVICE_OVERLOADED (default 90; 0 off).",
  SUIGW_USAGE_FLUSH_MS: 'How often usage counts are written to PostgreSQL (default 2000 ms); a crash loses at most one interval.',
  SUIGW_REDIS_KEY_PREFIX: 'Prefix of the rate limiter keys in Redis (default suigw:rl:).',
  SUIGW_METERING: 'on (default) or off. Off removes the limit and meter stages: no rate limits, no credits, no usage rows, no X-RateLimit-*/X-Svc-Credit-* headers. For private deployments that bill nobody, and to measure metering\'s cost (npm run bench).',
  SUIGW_GRPC_PORT: 'Port of the gRPC / gRPC-Web proxy (`suigw grpc`, default 9090); `suigw dev` serves one network per port from here up (0: free ports).',
  SUIGW_GRPC_MAX_CONNECTIONS_PER_IP: 'Connections one client IP (IPv6: one /64) may hold open on the gRPC port at once, per process (default 100); a further one is closed at once (docs/grpc.md, Abusive connections).',
  SUIGW_MAINNET_GRPC_HOST: 'Host name (the authority gRPC clients dial) that selects mainnet on the gRPC proxy; any other host is mainnet too (legacy rule).',
  SUIGW_TESTNET_GRPC_HOST: 'Host name that selects testnet on the gRPC proxy.',
  SUIGW_DEVNET_GRPC_HOST: 'Host name that selects devnet on the gRPC proxy.',
  SUIGW_GRAPHQL_MAX_QUERY_BYTES: 'Largest GraphQL query text accepted by POST /v1/graphql (default 16384 bytes); larger: 400 GRAPHQL_QUERY_TOO_LARGE.',
  SUIGW_GRAPHQL_MAX_DEPTH: 'Deepest selection nesting of a GraphQL query, fragments expanded (default 20, as Sui); deeper: 400 GRAPHQL_QUERY_TOO_DEEP.',
  SUIGW_GRAPHQL_MAX_ALIASES: 'Most aliased fields in a GraphQL query (default 50); more: 400 GRAPHQL_TOO_MANY_ALIASES.',
  SUIGW_GRAPHQL_MAX_COMPLEXITY: 'Most fields a GraphQL query selects, counted each time a fragment is spread (default 1000); more: 400 GRAPHQL_QUERY_TOO_COMPLEX.',
  SUIGW_RATE_LIMIT_TIMEOUT_MS: 'Longest wait for a Redis rate-limit decision (default 100 ms); slower or Redis down: the request is allowed (fail open).',
  SUIGW_PLANS_FILE: 'A JSON file with this deployment\'s own plan numbers (org rate, monthly credits, projects, streams, webhooks, proofs per minute), in the shape of the built-in plans (services/plans/plans.v1.ts, docs/metering.md, Plans): every plan and every number must be present. Read once at start-up by every role; an invalid file stops the process with its errors. Unset: the built-in plans.',
  SUIGW_RATE_LIMIT_LEASE_MS: 'Organization-rate lease window of the Redis limiter (default 20 ms): requests without per-key/per-IP caps are admitted from leases of at most rate × window taken from Redis, not one Redis call each; each process may admit up to one lease beyond the plan rate over any interval (docs/metering.md, Leases). 0: one exact Redis decision per request.',
  SUIGW_ZKLOGIN_ENABLED: 'Serve the /v1/zklogin endpoints (default true; false: 404 NOT_FOUND).',
  SUIGW_ZKLOGIN_ISSUER_JWKS: 'JSON {"<issuer>": "<JWKS URL>"} overriding the real issuers\' JWKS URLs (tests, private deployments); issuers must be one of the four the spec names.',
  SUIGW_ZKLOGIN_SALT_SECRET: 'Master secret of zkLogin user salts (32+ chars). Unset: derived from SUIGW_SECRET. Must never change for seedVersion 1 (it would change every user address); see docs/zklogin.md.',
  SUIGW_ZKLOGIN_PROVER_URL: 'Mysten prover service URL (POST /v1), or `local` for the local prover whose proofs do not verify on chain. Unset: /prove answers 502 PROVER_FAILED; `suigw dev` uses local.',
  SUIGW_ZKLOGIN_PROVER_TIMEOUT_MS: 'Deadline of one prover call (default 15000 ms); past it 502 PROVER_FAILED.',
  SUIGW_ZKLOGIN_PROVER_SLOTS: 'Proofs in flight per process (default 8), one organization holding at most all but a quarter of them (6 of 8); past either 503 PROVER_BUSY with Retry-After.',
  SUIGW_WEBHOOK_ALLOW_HTTP: 'Accept http:// webhook URLs (default false: HTTPS only; `suigw dev` defaults to true).',
  SUIGW_WEBHOOK_ALLOWED_ADDRESSES: 'Private, loopback or link-local addresses webhook deliveries may reach, IPs or CIDRs, comma separated (default none: only public addresses; `suigw dev` defaults to 127.0.0.0/8,::1). See docs/webhooks.md.',
  SUIGW_WEBHOOK_TIMEOUT_MS: 'Deadline of one webhook delivery attempt (default 10000 ms); past it the attempt failed and is retried.',
  SUIGW_OPERATOR_NAMESPACE: '`suigw operator`: the namespace of its Lease, stream-worker Deployments and billing CronJobs (those of every namespace\'s OnchainPlans; default suigw).',
  SUIGW_OPERATOR_IDENTITY: "`suigw operator`: this replica's name in the leader Lease (default: the host name, i.e. the pod name).",
  KUBECONFIG: "`suigw operator` outside a cluster: its kubeconfig file(s), separated as PATH is (unset: ~/.kube/config; neither, and not in a pod with a service account: it stops at start-up, exit 2).",
  SUIGW_OPERATOR_IMAGE: '`suigw operator`: the image of the stream workers and billing CronJobs it creates.',
  SUIGW_OPERATOR_ENV_SECRET: "`suigw operator`: the Secret (SUIGW_SECRET, DATABASE_URL, REDIS_URL and any other secret, e.g. SUIGW_BILLING_SPONSOR_KEY) the stream workers and billing CronJobs it creates take their environment from (every key), in SUIGW_OPERATOR_NAMESPACE where it creates them (default suigw-env; the Helm chart sets its own).",
  SUIGW_OPERATOR_ENV_CONFIGMAP: "`suigw operator`: a ConfigMap whose every key is environment of the stream workers and billing CronJobs it creates (upstream URLs, plans, webhook and billing settings: what the other roles read), in SUIGW_OPERATOR_NAMESPACE; the Secret wins over it. Unset: none (the Helm chart sets its `config.env`).",
  SUIGW_OPERATOR_EVENTS_PER_WORKER: '`suigw operator`: expected events per second one stream worker carries (default 500; replicas = ceil(load / this)).',
  SUIGW_OPERATOR_MAX_STREAM_WORKERS: '`suigw operator`: most stream-worker replicas per network (default 10).',
  SUIGW_OPERATOR_STREAMS_RESOURCES: '`suigw operator`: the `resources` of each stream worker\'s container, as JSON (default `{"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"memory": "1Gi"}}`, the chart\'s streams role); a request above its limit is refused.',
  SUIGW_OPERATOR_BILLING_RESOURCES: '`suigw operator`: the `resources` of each billing Job\'s container, as JSON (default `{"requests": {"cpu": "100m", "memory": "192Mi"}, "limits": {"memory": "384Mi"}}`); a request above its limit is refused.',
  SUIGW_BILLING_NETWORKS: 'On-chain billing per network, JSON {"testnet": {"packageId", "configId", "usdcType", "treasury"}} (the billing app of move/suigw_billing, its BillingConfig object, USDC\'s coin type, the treasury). Unset networks answer 403 ONCHAIN_BILLING_DISABLED; `suigw dev` sets simnet\'s. See docs/billing.md.',
  SUIGW_BILLING_SPONSOR_KEY: 'The billing sponsor key (an ED25519 key, `suiprivkey1…`, a secret, never logged; any other value stops every role at start-up, exit 2): the allowances\' spender; signs charges and pays their gas. Required for on-chain billing; `suigw dev` uses simnet\'s deployer.',
  SUIGW_BILLING_ORGANIZATION: '`suigw billing`: charge only this organization (the OnchainPlan CronJob sets it); unset: every organization.',
  SUIGW_SMTP_URL: 'SMTP server of billing emails (`smtp://` or `smtps://user:pass@host:port`); unset: emails are appended to SUIGW_BILLING_OUTBOX.',
  SUIGW_BILLING_EMAIL_FROM: 'From address of billing emails (default `suigw billing <billing@suigw.invalid>`).',
  SUIGW_BILLING_OUTBOX: 'File that receives billing emails (one JSON line each) when SUIGW_SMTP_URL is unset (default SUIGW_DATA_DIR/billing-outbox.jsonl).',
};
