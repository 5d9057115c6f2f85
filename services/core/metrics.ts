import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { SeriesCounter, SeriesGauge, SeriesHistogram } from './series-metrics.js';

/**
 * Buckets of prom-client's `nodejs_gc_duration_seconds`: its own (1 ms, 10 ms, 100 ms, 1 s, 2 s,
 * 5 s) and the timeouts of Envoy's calls to `suigw ratelimit` (20 ms) and `suigw authz` (200 ms,
 * operator/settings.ts), so that /metrics counts the pauses that outlast them. A call that meets
 * such a pause is answered after Envoy stopped waiting: ext_authz then answers 503, the rate
 * limit filter lets the request through unlimited (docs/operations.md, SuigwRateLimitFailingOpen).
 */
export const GC_PAUSE_BUCKETS_SECONDS: readonly number[] = [0.001, 0.01, 0.02, 0.1, 0.2, 1, 2, 5];

/**
 * The service's Prometheus instruments, on a registry of their own (one per process in
 * production, one per app in tests, so parallel test apps never share counters). Modules get
 * the instruments they need handed in; nothing reads a global registry.
 *
 * Labels are bounded: routes are the route *patterns* (`/v1/accounts/:address`), never raw
 * URLs; organizations appear only on the credit instruments (what a bill is made of).
 */
export class Metrics {
  readonly registry = new Registry();

  /** Every answered request, by protocol (rest, management, jsonrpc, graphql, grpc), route pattern and status. */
  // Recorded on every request: series instruments (series-metrics.ts), exported like prom-client's.
  readonly requests = new SeriesCounter(
    'suigw_requests_total',
    'Requests answered, by protocol, route pattern, method and status code.',
    ['protocol', 'route', 'method', 'status'],
    this.registry,
  );

  readonly requestDuration = new SeriesHistogram(
    'suigw_request_duration_seconds',
    'Time from the first byte of a request to the last byte of its answer.',
    ['protocol', 'route', 'method'],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    this.registry,
  );

  /** One upstream call (one attempt of it), by network, API (grpc, graphql), method and outcome. */
  // Recorded on every upstream attempt: series instruments.
  readonly upstreamCalls = new SeriesCounter(
    'suigw_upstream_calls_total',
    'Upstream call attempts by network, api (grpc|graphql), method and outcome (ok or the error kind).',
    ['network', 'api', 'method', 'outcome'],
    this.registry,
  );

  readonly upstreamDuration = new SeriesHistogram(
    'suigw_upstream_call_duration_seconds',
    'Duration of upstream call attempts by network, api and method.',
    ['network', 'api', 'method'],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    this.registry,
  );

  /** 0 closed, 1 half-open, 2 open. */
  readonly breakerState = new Gauge({
    name: 'suigw_upstream_breaker_state',
    help: 'Circuit breaker state per network and method group: 0 closed, 1 half-open, 2 open.',
    labelNames: ['network', 'group'] as const,
    registers: [this.registry],
    // Summed over a role's workers (services/cli/workers.ts), a state would add up; the worst one shows.
    aggregator: 'max',
  });

  // Recorded on every charged request, as is the gauge below: series instruments.
  readonly creditsConsumed = new SeriesCounter(
    'suigw_credits_consumed_total',
    'Credits charged, by organization and plan.',
    ['organization', 'plan'],
    this.registry,
  );

  /**
   * What this process last saw left of each organization's credits this period (plan credits plus
   * prepaid), set whenever a request of the organization is charged. Processes see each other's
   * charges after a usage flush, so the lowest value across processes is the closest.
   */
  readonly creditsRemaining = new SeriesGauge(
    'suigw_credits_remaining',
    'Credits an organization has left this period (plan plus prepaid), as of its last charged request on this process.',
    ['organization'],
    this.registry,
    // Across a role's workers (services/cli/workers.ts) the lowest is the closest, as across processes.
    'min',
  );

  /** Checkpoints the Warp ingest matched and appended, per network: flat means the ingest stalled. */
  readonly warpCheckpointsIngested = new Counter({
    name: 'suigw_warp_checkpoints_ingested_total',
    help: 'Checkpoints matched against the Warp streams and webhooks and appended, per network.',
    labelNames: ['network'] as const,
    registers: [this.registry],
  });

  /**
   * How far the ingest trails the chain: at each ingested checkpoint, the time since it was sealed
   * (the checkpoint's own timestamp; simnet's are synthetic, so in `suigw dev` this says nothing).
   */
  readonly warpIngestLag = new Gauge({
    name: 'suigw_warp_ingest_lag_seconds',
    help: 'Seconds between a checkpoint being sealed and the Warp ingest appending it, per network (the latest checkpoint).',
    labelNames: ['network'] as const,
    registers: [this.registry],
    aggregator: 'max',
  });

  /**
   * Open Warp connections of this process, per network and transport: what a stream worker
   * carries (the operator scales them by WarpStream load; this shows it from the inside).
   * Summed over a role's workers, as connections add up.
   */
  readonly warpConnections = new Gauge({
    name: 'suigw_warp_connections',
    help: 'Open Warp stream connections, per network and protocol (websocket, sse).',
    labelNames: ['network', 'protocol'] as const,
    registers: [this.registry],
    aggregator: 'sum',
  });

  /** kind: key_or_ip (per-key/per-IP cap), organization (plan rate), quota (monthly credits), proofs. */
  readonly rateLimitRejections = new Counter({
    name: 'suigw_rate_limit_rejections_total',
    help: 'Requests refused with 429, by kind: key_or_ip, organization, quota, proofs.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  /** The limiter's store did not answer; `decision` says what the request got (allowed: fail-open). */
  readonly limiterFailures = new Counter({
    name: 'suigw_limiter_store_failures_total',
    help: 'Limiter decisions made without the store (Redis down), by backend and decision taken.',
    labelNames: ['backend', 'decision'] as const,
    registers: [this.registry],
  });

  readonly keyCacheLookups = new SeriesCounter(
    'suigw_key_cache_lookups_total',
    'API key verifications by cache result: hit or miss.',
    ['result'],
    this.registry,
  );

  /** JSON-RPC's kept upstream reads (services/jsonrpc/read-cache.ts): a hit costs no upstream call. */
  readonly jsonRpcCacheLookups = new SeriesCounter(
    'suigw_jsonrpc_cache_lookups_total',
    'JSON-RPC read cache lookups by network, kind of read (checkpoint, transaction, move-package, ...) and result: hit or miss.',
    ['network', 'kind', 'result'],
    this.registry,
  );

  readonly jsonRpcCacheBytes = new Gauge({
    name: 'suigw_jsonrpc_cache_bytes',
    help: 'Bytes (UTF-8 JSON size of the values) the JSON-RPC read cache holds per network, as of its last store.',
    labelNames: ['network'] as const,
    registers: [this.registry],
  });

  readonly jsonRpcCacheEntries = new Gauge({
    name: 'suigw_jsonrpc_cache_entries',
    help: 'Entries the JSON-RPC read cache holds per network, as of its last store.',
    labelNames: ['network'] as const,
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    // Process metrics (CPU, memory, GC, event-loop lag as nodejs_eventloop_lag_*).
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, gcDurationBuckets: [...GC_PAUSE_BUCKETS_SECONDS] });
    // Every known label set of the refusal counters exists at 0 from the start, so a rate() over
    // them has a series before the first refusal (Prometheus practice for counters).
    for (const kind of RATE_LIMIT_KINDS) this.rateLimitRejections.inc({ kind }, 0);
    for (const decision of LIMITER_FAILURE_DECISIONS) this.limiterFailures.inc({ backend: 'redis', decision }, 0);
  }

  /** The text exposition format, for `GET /metrics`. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Why a request got 429 (docs/metering.md): per-key/per-IP cap, plan rate, monthly credits, proof budget. */
export const RATE_LIMIT_KINDS = ['key_or_ip', 'organization', 'quota', 'proofs'] as const;
export type RateLimitKind = (typeof RATE_LIMIT_KINDS)[number];
/** The Redis limiter fails open: its one decision without the store is `allowed`. */
export const LIMITER_FAILURE_DECISIONS = ['allowed'] as const;

export const BREAKER_STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;
