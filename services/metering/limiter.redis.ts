import { Redis } from 'ioredis';
import type { Clock, Logger, Metrics } from '../core/index.js';
import { gcraParams } from './gcra.js';
import type { LimitCheck, LimitDecision, LimiterStats, LimitRule, RateLimiter } from './limiter.js';

/**
 * One decision = one atomic script (the semantics of `limiter.ts`): GCRA per key in
 * microseconds of Redis's own clock (`TIME`), so every gateway process sharing this Redis sees
 * one time line. KEYS: the caps, then the organization. ARGV: quantity, then per key its
 * emission interval and burst tolerance (µs). Returns {outcome, org remaining, org TAT ms,
 * retry-after ms}; outcome 0 allowed, 1 a cap denied, 2 the organization denied.
 * Numbers are written with %.0f: Lua's tostring would round a µs timestamp to 14 digits.
 * A stored TAT past `now + tolerance + interval` can only come from a clock that went backwards
 * (gcra.ts, clockSafeTat): the key starts afresh instead of refusing until the clock catches up.
 */
const GCRA_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local quantity = tonumber(ARGV[1])
local function decide(i, qty)
  local interval = tonumber(ARGV[2 * i])
  local tolerance = tonumber(ARGV[2 * i + 1])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tat > now + tolerance + interval or tat < now then tat = now end
  local new_tat = tat + interval * qty
  local allow_at = new_tat - tolerance
  if qty > 0 and allow_at > now then
    return false, tat, math.max(0, math.floor((now + tolerance - tat) / interval)), allow_at - now
  end
  return true, new_tat, math.max(0, math.floor((now + tolerance - new_tat) / interval)), 0
end
local function store(i, tat)
  local ttl = math.ceil((tat - now) / 1000) + 1
  redis.call('SET', KEYS[i], string.format('%.0f', tat), 'PX', ttl)
end
local org = #KEYS
local cap_tats = {}
for i = 1, org - 1 do
  local ok, tat, _, wait = decide(i, quantity)
  if not ok then
    local _, org_tat, org_remaining = decide(org, 0)
    return {1, org_remaining, math.floor(org_tat / 1000), math.ceil(wait / 1000)}
  end
  cap_tats[i] = tat
end
for i = 1, org - 1 do store(i, cap_tats[i]) end
local ok, tat, remaining, wait = decide(org, quantity)
if not ok then
  return {2, remaining, math.floor(tat / 1000), math.ceil(wait / 1000)}
end
if quantity > 0 then store(org, tat) end
return {0, remaining, math.floor(tat / 1000), 0}
`;

/**
 * A lease: up to ARGV[1] requests of one organization taken at once from its GCRA (KEYS[1]),
 * as many as it allows right now (the same arithmetic as `GCRA_SCRIPT` with a quantity of
 * `granted`). ARGV: wanted, emission interval, burst tolerance (µs), returned: what the
 * previous lease of this process left unspent, given back first (its TAT moves back by that many
 * intervals, never before now), so an expired lease's leftovers are not counted as requests.
 * Returns {granted, remaining after, TAT ms, retry-after ms}; granted 0 is a denial, with the
 * wait for one request.
 */
const LEASE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local wanted = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local returned = tonumber(ARGV[4])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat > now + tolerance + interval then tat = now end
tat = tat - interval * returned
if tat < now then tat = now end
local available = math.max(0, math.floor((now + tolerance - tat) / interval))
local granted = math.min(wanted, available)
if granted == 0 then
  if returned > 0 and tat > now then redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000) + 1) end
  return {0, 0, math.floor(tat / 1000), math.ceil((tat + interval - tolerance - now) / 1000)}
end
local new_tat = tat + interval * granted
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1)
return {granted, available - granted, math.floor(new_tat / 1000), 0}
`;

type ScriptReply = [number, number, number, number];

interface ScriptedRedis extends Redis {
  gcraCheck(numberOfKeys: number, ...args: (string | number)[]): Promise<ScriptReply>;
  gcraLease(key: string, wanted: number, intervalUs: number, toleranceUs: number, returned: number): Promise<ScriptReply>;
}

const OUTCOMES = ['allowed', 'cap-exceeded', 'org-exceeded'] as const;

/** Sweep leases that hold nothing once this many organizations have one. */
const SWEEP_LEASES_AT = 10_000;

/** Default of `leaseMs` (SUIGW_RATE_LIMIT_LEASE_MS). */
export const DEFAULT_LEASE_MS = 20;

export interface RedisRateLimiterOptions {
  url: string;
  logger: Logger;
  /** Lease expiry, and the headers of a fail-open answer; GCRA decisions use Redis's clock. */
  clock: Clock;
  /** Prefix of every key (several deployments, or tests, may share one Redis). */
  keyPrefix?: string;
  /** A decision that takes longer fails open (SUIGW_RATE_LIMIT_TIMEOUT_MS; Envoy's ratelimit filter waits 20 ms). */
  timeoutMs?: number;
  /**
   * The organization-rate lease window (SUIGW_RATE_LIMIT_LEASE_MS): a lease holds at most
   * ⌊rate × leaseMs / 1000⌋ requests and lives leaseMs. 0: one Redis decision per request.
   */
  leaseMs?: number;
  /** Counts each decision taken without Redis (services/core/metrics.ts). */
  failures?: Metrics['limiterFailures'];
}

/**
 * Requests of one organization this process may admit without asking Redis: taken from the
 * organization's GCRA in Redis ahead of use, so every admitted request has been counted there.
 */
interface Lease {
  /** Unspent requests of the current lease. */
  tokens: number;
  /** Spent from the current lease. */
  used: number;
  /** How many the next lease asks for (grows ×2 while leases run out, shrinks to the demand when one expires). */
  size: number;
  /** Local clock. Unspent tokens are dropped then, so the headers never describe an old state. */
  expiresAtMs: number;
  /** After a denial: until then (local clock) this process denies without asking Redis again. */
  deniedUntilMs: number;
  /** Redis's count of the organization's remaining requests after the last lease or denial. */
  remaining: number;
  resetAtMs: number;
  /** The lease being taken; resolves to the Redis error when it failed. */
  renewing: Promise<unknown> | undefined;
}

/**
 * The shared limiter for several gateway processes. When Redis cannot answer (down, or slower
 * than `timeoutMs`) the request is allowed — fail open, as Envoy's ratelimit filter does by
 * default — and the failure is logged (first one, then every 1000th) and counted in `stats()`:
 * Redis holds only rebuildable counters, and credits stay enforced by the ledger meanwhile.
 *
 * Requests with per-key or per-IP caps take one exact decision each (one script call). Requests
 * that only count against their organization's rate, the common case, take it from a lease when
 * the rate allows more than one request per lease window: one Redis round trip per lease instead
 * of per request. A lease is consumed in Redis before it is spent, so the organization never gets
 * more than GCRA allows from the start; over any interval the processes admit at most
 * ⌊rate × leaseMs / 1000⌋ each beyond it (what they held unspent when the interval began).
 * docs/metering.md, "Leases", states and tests that bound.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: ScriptedRedis;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #leases = new Map<string, Lease>();
  /** Recent header-only reads per organization (`#peek`). */
  /** Recent header-only reads per organization; `settled` once the read answered. */
  readonly #peeks = new Map<string, { decision: Promise<LimitDecision>; settled: LimitDecision | undefined; expiresAtMs: number; pending: boolean }>();
  #decisions = 0;
  #failOpen = 0;
  #roundTrips = 0;
  readonly #failures: Metrics['limiterFailures'] | undefined;

  constructor(options: RedisRateLimiterOptions) {
    this.#logger = options.logger;
    this.#clock = options.clock;
    this.#prefix = options.keyPrefix ?? 'suigw:rl:';
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#failures = options.failures;
    this.#redis = new Redis(options.url, {
      lazyConnect: true,
      // Never queue behind a dead connection: fail fast, and fail open.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.timeoutMs ?? 100,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    }) as ScriptedRedis;
    this.#redis.on('error', () => {
      // Connection errors surface through failed decisions (counted and logged there).
    });
    this.#redis.defineCommand('gcraCheck', { lua: GCRA_SCRIPT });
    this.#redis.defineCommand('gcraLease', { lua: LEASE_SCRIPT, numberOfKeys: 1 });
  }

  /** Connects once; a Redis that is down at start is retried in the background (fail open meanwhile). */
  async connect(): Promise<void> {
    try {
      await this.#redis.connect();
    } catch (error) {
      this.#logger.warn({ err: error }, 'rate limiter: Redis unreachable at start; allowing requests until it is back');
    }
  }

  async check(request: LimitCheck): Promise<LimitDecision> {
    this.#decisions += 1;
    if (request.caps.length === 0 && request.quantity === 1) {
      const largestLease = this.#largestLease(request.org);
      if (largestLease > 1) return this.#fromLease(request.org, largestLease);
    }
    if (request.caps.length === 0 && request.quantity === 0 && this.#leaseMs > 0) return this.#peek(request);
    return this.#decide(request);
  }

  checkNow(request: LimitCheck): LimitDecision | undefined {
    if (request.caps.length > 0) return undefined;
    const { org } = request;
    const now = this.#clock.now();
    const lease = this.#leases.get(org.key);
    let decision: LimitDecision | undefined;
    if (request.quantity === 1 && this.#largestLease(org) > 1) decision = lease && this.#leaseDecision(org, lease, now);
    else if (request.quantity === 0 && this.#leaseMs > 0) decision = this.#peekNow(org, lease, now);
    if (decision) this.#decisions += 1;
    return decision;
  }

  #largestLease(org: LimitRule): number {
    return Math.floor((org.perSecond * this.#leaseMs) / 1000);
  }

  /** A header-only read answered from the live lease or a settled recent read; undefined otherwise. */
  #peekNow(org: LimitRule, lease: Lease | undefined, now: number): LimitDecision | undefined {
    if (lease && now < lease.expiresAtMs && now >= lease.deniedUntilMs) {
      return { outcome: 'allowed', org: { limit: org.perSecond, remaining: lease.remaining + lease.tokens, resetAtMs: lease.resetAtMs }, retryAfterMs: 0 };
    }
    const cached = this.#peeks.get(org.key);
    return cached && !cached.pending && now < cached.expiresAtMs ? cached.settled : undefined;
  }

  /**
   * A read of the organization's state for headers only (a free route: nothing consumed). Answered
   * from this process's live lease, or from a read of Redis at most `leaseMs` old (concurrent reads
   * share one call): the headers are as fresh as a leased request's, without a round trip per
   * management call.
   */
  async #peek(request: LimitCheck): Promise<LimitDecision> {
    const { org } = request;
    const now = this.#clock.now();
    const answered = this.#peekNow(org, this.#leases.get(org.key), now);
    if (answered) return answered;
    const cached = this.#peeks.get(org.key);
    if (cached && (cached.pending || now < cached.expiresAtMs)) return cached.decision;
    if (this.#peeks.size >= SWEEP_LEASES_AT) {
      for (const [key, entry] of this.#peeks) if (!entry.pending && now >= entry.expiresAtMs) this.#peeks.delete(key);
    }
    const entry = { decision: this.#decide(request), settled: undefined as LimitDecision | undefined, expiresAtMs: Number.POSITIVE_INFINITY, pending: true };
    this.#peeks.set(org.key, entry);
    try {
      entry.settled = await entry.decision;
    } finally {
      entry.pending = false;
      entry.expiresAtMs = this.#clock.now() + this.#leaseMs;
    }
    return entry.decision;
  }

  stats(): LimiterStats {
    return { decisions: this.#decisions, failOpen: this.#failOpen, roundTrips: this.#roundTrips };
  }

  async close(): Promise<void> {
    this.#leases.clear();
    this.#peeks.clear();
    this.#redis.disconnect();
  }

  /** One exact decision over every rule (one script call). */
  async #decide(request: LimitCheck): Promise<LimitDecision> {
    const rules = [...request.caps, request.org];
    const args: (string | number)[] = rules.map((rule) => this.#prefix + rule.key);
    args.push(request.quantity);
    for (const rule of rules) args.push(...microseconds(rule));
    this.#roundTrips += 1;
    try {
      const [outcome, remaining, resetAtMs, retryAfterMs] = await this.#redis.gcraCheck(rules.length, ...args);
      return { outcome: OUTCOMES[outcome]!, org: { limit: request.org.perSecond, remaining, resetAtMs }, retryAfterMs };
    } catch (error) {
      return this.#allowWithoutRedis(request.org, error);
    }
  }

  /** An organization-only decision answered from this process's lease, renewed when spent or expired. */
  async #fromLease(org: LimitRule, largestLease: number): Promise<LimitDecision> {
    let lease = this.#leases.get(org.key);
    if (!lease) {
      if (this.#leases.size >= SWEEP_LEASES_AT) this.#sweepLeases();
      lease = { tokens: 0, used: 0, size: 1, expiresAtMs: 0, deniedUntilMs: 0, remaining: 0, resetAtMs: 0, renewing: undefined };
      this.#leases.set(org.key, lease);
    }
    for (;;) {
      const decided = this.#leaseDecision(org, lease, this.#clock.now());
      if (decided) return decided;
      // One renewal at a time per organization: concurrent requests wait for it, then share it.
      lease.renewing ??= this.#renew(org, lease, largestLease).finally(() => {
        lease.renewing = undefined;
      });
      const failure = await lease.renewing;
      if (failure !== undefined) return this.#allowWithoutRedis(org, failure);
    }
  }

  /** One request from the live lease, or the denial still in force; undefined when a renewal is due. */
  #leaseDecision(org: LimitRule, lease: Lease, now: number): LimitDecision | undefined {
    if (lease.tokens > 0 && now < lease.expiresAtMs) {
      lease.tokens -= 1;
      lease.used += 1;
      return { outcome: 'allowed', org: { limit: org.perSecond, remaining: lease.remaining + lease.tokens, resetAtMs: lease.resetAtMs }, retryAfterMs: 0 };
    }
    if (now < lease.deniedUntilMs) {
      return { outcome: 'org-exceeded', org: { limit: org.perSecond, remaining: 0, resetAtMs: lease.resetAtMs }, retryAfterMs: lease.deniedUntilMs - now };
    }
    return undefined;
  }

  /** Takes the next lease; resolves to the error when Redis could not answer (nothing held then). */
  async #renew(org: LimitRule, lease: Lease, largestLease: number): Promise<unknown> {
    // Demand decides the size: double it while leases run out, shrink it to what was spent when one expires.
    const wanted = Math.min(largestLease, lease.tokens === 0 ? lease.size * 2 : Math.max(1, lease.used));
    // What the expired lease left unspent goes back to the organization with this call: counted as
    // spent, it would drain the rate below the plan's under steady load.
    const returned = lease.tokens;
    lease.tokens = 0;
    lease.used = 0;
    const [intervalUs, toleranceUs] = microseconds(org);
    this.#roundTrips += 1;
    try {
      const [granted, remaining, resetAtMs, retryAfterMs] = await this.#redis.gcraLease(this.#prefix + org.key, wanted, intervalUs, toleranceUs, returned);
      // Timed from the answer: a slow Redis must not hand out leases that are already over.
      const now = this.#clock.now();
      // Over its rate, an organization's demand takes every request GCRA frees at once. Asking again
      // when one request is free (≈ 1 ms at 2,000/s) took leases of 1 or 2: a Redis call per admitted
      // request (1.35 measured) where the in-memory limiter answers locally. The denial lasts until a
      // quarter of the largest lease is free instead; the organization still gets its whole rate.
      const overRateLease = Math.max(1, Math.floor(largestLease / 4));
      lease.size = granted === 0 ? overRateLease : wanted;
      lease.tokens = granted;
      lease.remaining = remaining;
      lease.resetAtMs = resetAtMs;
      lease.expiresAtMs = now + this.#leaseMs;
      lease.deniedUntilMs = granted === 0 ? now + retryAfterMs + (overRateLease - 1) * (intervalUs / 1000) : 0;
      return undefined;
    } catch (error) {
      lease.size = 1;
      return error ?? new Error('Redis lease failed');
    }
  }

  /** Forgets organizations that hold nothing (no tokens, no denial, no renewal), so idle ones do not accumulate. */
  #sweepLeases(): void {
    const now = this.#clock.now();
    for (const [key, lease] of this.#leases) {
      if (!lease.renewing && (lease.tokens === 0 || now >= lease.expiresAtMs) && now >= lease.deniedUntilMs) this.#leases.delete(key);
    }
  }

  #allowWithoutRedis(org: LimitRule, error: unknown): LimitDecision {
    this.#failOpen += 1;
    this.#failures?.inc({ backend: 'redis', decision: 'allowed' });
    if (this.#failOpen % 1000 === 1) {
      this.#logger.warn({ err: error, failOpen: this.#failOpen }, 'rate limiter: Redis unavailable; request allowed (fail open)');
    }
    return { outcome: 'allowed', org: { limit: org.perSecond, remaining: org.burst, resetAtMs: this.#clock.now() }, retryAfterMs: 0 };
  }
}

function microseconds(rule: LimitRule): [number, number] {
  const params = gcraParams(rule.perSecond, rule.burst);
  return [Math.round(params.intervalMs * 1000), Math.round(params.toleranceMs * 1000)];
}
