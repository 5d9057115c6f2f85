import { ApiError, retryAfter, type RateLimitKind } from '../core/index.js';
import type { Principal } from '../identity/index.js';
import { admissionCredits, creditsCharged, isFree, type ChargeOutcome, type RouteCost } from './costs.js';
import { CreditSeries, type MeterInstruments } from './credit-series.js';
import type { CreditBalance, CreditLedger } from './credits.js';
import type { LimitCheck, LimitDecision, LimitRule, OrgRateState, RateLimiter } from './limiter.js';
import { planOf, type Plan } from '../plans/plan-table.js';
import type { UsageRecorder } from './usage.js';

/** A request the limit stage sees: who, from where, what route, at what price. Transport-neutral. */
export interface MeteredRequest {
  principal: Principal;
  /** The visitor's IP (the adapter's view, honouring trusted proxies). */
  clientIp: string;
  network: string;
  /** "METHOD /v1/path/:param". */
  route: string;
  cost: RouteCost;
}

/** What the limit stage decided, carried to the meter stage. */
export interface MeterTicket {
  readonly request: MeteredRequest;
  /**
   * The plan of the principal at admission: the request's rate limits and the credits metric's
   * label. Credits are not decided by it: the ledger reads the organization's plan from its row,
   * so a connection opened before a plan change does not carry the old one into the balance.
   */
  readonly plan: Plan;
  /** Credits taken from the balance at admission (the success price, or 0), plus any extra units (`charge`). */
  reserved: number;
  /**
   * How many operations at the route's price the answered request is charged for: 1, except
   * for requests that carry several operations (a JSON-RPC batch, see `charge`).
   */
  units: number;
  /** Set when the limit stage refused the request. */
  readonly refusal: 'key-cap' | 'org-rate' | 'quota' | undefined;
  /** Credits charged after admission for what the call delivered (streamed messages); always charged. */
  extended: number;
  /** Credits taken by `hold` and neither charged nor released yet. */
  held: number;
  org: OrgRateState;
  credit: CreditBalance;
  settled: boolean;
}

/**
 * Who pays for what the gateway pushes on an organization's behalf without a request (a webhook
 * delivery): there is no key and no ticket, only the organization, its plan and what its usage
 * rows are filed under.
 */
export interface PushPayer {
  organizationId: string;
  plan: Plan;
  network: string;
  /** The usage rows' key column: a push has no API key, so the id of what pushed (the webhook). */
  payerId: string;
}

/** What `charge` takes: a number of operations at the route's price, or credits. */
export type ChargeAmount = { units: number } | { credits: number; route?: string; fromHold?: boolean };

export interface Admission {
  ticket: MeterTicket;
  /** The refusal to answer with, when refused. */
  error: ApiError | undefined;
}

/**
 * Who runs the limit stage. `whole`: one process does all (no Envoy). Behind Envoy it is split:
 * `limits` is Envoy's ratelimit service (caps and organization rate consumed, credits checked but
 * not reserved; a refusal is settled there), `credits` is the service that answers (it reads the
 * organization's state for headers, reserves the price and settles it with the answer).
 */
export type AdmissionStage = 'whole' | 'limits' | 'credits';

export interface MeterDeps {
  limiter: RateLimiter;
  ledger: CreditLedger;
  usage: UsageRecorder;
  /** Credits charged per organization and plan, credits left per organization, 429s per kind. */
  instruments?: MeterInstruments;
}

const REJECTION_KIND: Record<NonNullable<MeterTicket['refusal']>, RateLimitKind> = {
  'key-cap': 'key_or_ip',
  'org-rate': 'organization',
  quota: 'quota',
};

export const RATE_LIMIT_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
  creditRemaining: 'x-svc-credit-remaining',
  creditReplenishDate: 'x-svc-credit-replenish-date',
} as const;

/**
 * The limit stage (admit) and the meter stage (settle) of the request pipeline, for every
 * adapter: the fastify hooks today, the gRPC proxy and Envoy's ratelimit service next.
 */
export class Meter {
  readonly #deps: MeterDeps;
  readonly #credits: CreditSeries | undefined;

  constructor(deps: MeterDeps) {
    this.#deps = deps;
    this.#credits = deps.instruments && new CreditSeries(deps.instruments);
  }

  /**
   * Per-key and per-IP caps, then the organization's plan rate, then its credits. Free routes
   * (management) work at zero balance and do not count against the plan's rate, so a saturated
   * data plane never locks an administrator out; they pass the key's caps, and count against a
   * management allowance of the same rate (`managementRule`: writes and reads each their own),
   * so one tenant's management calls cannot flood the database (or the node) for all. They read
   * the organization's state for headers. `stage` says who runs which part when Envoy is in front.
   */
  async admit(request: MeteredRequest, stage: AdmissionStage = 'whole'): Promise<Admission> {
    const plan = planOf(request.principal.organization);
    const free = isFree(request.cost);
    if (free && stage !== 'credits' && managementLimited(request)) {
      const refused = await this.#admitManagement(request, plan);
      if (refused) return refused;
    }
    // Behind Envoy the service only reads the organization's state: the ratelimit service consumed it.
    const limited = !free && stage !== 'credits';
    const decision = await this.#deps.limiter.check({
      caps: limited ? capsOf(request) : [],
      org: orgRule(request.principal, plan),
      quantity: limited ? 1 : 0,
    });
    if (decision.outcome === 'cap-exceeded') {
      const credit = await this.#deps.ledger.balance(request.principal.organization.id);
      const seconds = retryAfterSeconds(decision.retryAfterMs);
      // Spec: not billed, and the answer does not say which cap.
      return {
        ticket: this.#ticket(request, plan, decision.org, 'key-cap', 0, credit),
        error: new ApiError('RATE_LIMIT_EXCEEDED', { headers: { 'retry-after': String(seconds) } }),
      };
    }
    const reservation = await this.#deps.ledger.reserve(request.principal.organization.id, admissionCredits(request.cost));
    return this.#admission(request, plan, stage, decision, reservation);
  }

  /**
   * `admit` without waiting, for the common case: no per-key or per-IP cap, the limiter can
   * decide from what this process holds (a lease, a recent read) and the organization's credit
   * account is loaded. Undefined when `admit` must run (nothing was taken then). Each promise of
   * the async path costs a microtask on every request (docs/benchmarks.md, "HTTP layer").
   */
  admitNow(request: MeteredRequest, stage: AdmissionStage = 'whole'): Admission | undefined {
    const plan = planOf(request.principal.organization);
    const free = isFree(request.cost);
    const limited = !free && stage !== 'credits';
    const organizationId = request.principal.organization.id;
    const management = free && stage !== 'credits' && managementLimited(request);
    if (((limited || management) && capsOf(request).length > 0) || !this.#deps.ledger.isCurrent(organizationId)) return undefined;
    const decision = this.#deps.limiter.checkNow({ caps: [], org: orgRule(request.principal, plan), quantity: limited ? 1 : 0 });
    if (decision === undefined) return undefined;
    // Last, once nothing else can send the call to `admit` (which would count it again); a
    // refusal consumed nothing, and `admit` answers it.
    if (management && this.#deps.limiter.checkNow({ caps: [], org: managementRule(request, plan), quantity: 1 })?.outcome !== 'allowed') return undefined;
    // The account is current (checked above) and nothing awaited since: this answers.
    const reservation = this.#deps.ledger.reserveNow(organizationId, admissionCredits(request.cost))!;
    return this.#admission(request, plan, stage, decision, reservation);
  }

  /** The key's caps and the management allowance for a free route: the refusal, or undefined to go on. */
  async #admitManagement(request: MeteredRequest, plan: Plan): Promise<Admission | undefined> {
    const decision = await this.#deps.limiter.check({ caps: capsOf(request), org: managementRule(request, plan), quantity: 1 });
    if (decision.outcome === 'allowed') return undefined;
    // The headers show the organization's plan rate, which management calls do not spend.
    const [state, credit] = await Promise.all([
      this.#deps.limiter.check({ caps: [], org: orgRule(request.principal, plan), quantity: 0 }),
      this.#deps.ledger.balance(request.principal.organization.id),
    ]);
    const seconds = retryAfterSeconds(decision.retryAfterMs);
    if (decision.outcome === 'cap-exceeded') {
      return { ticket: this.#ticket(request, plan, state.org, 'key-cap', 0, credit), error: new ApiError('RATE_LIMIT_EXCEEDED', { headers: { 'retry-after': String(seconds) } }) };
    }
    return {
      ticket: this.#ticket(request, plan, state.org, 'org-rate', 0, credit),
      error: new ApiError('ORG_RATE_LIMITED', {
        message: `The organization's management calls exceed its plan's rate (${plan.orgRps} per second, ${plan.orgRps * MANAGEMENT_BURST_SECONDS} at once).`,
        ...retryAfter(seconds),
      }),
    };
  }

  /** What admission decided once the limiter passed the caps and the credits were reserved. */
  #admission(
    request: MeteredRequest, plan: Plan, stage: AdmissionStage, decision: LimitDecision, reservation: { ok: boolean; balance: CreditBalance },
  ): Admission {
    const credits = admissionCredits(request.cost);
    if (!reservation.ok) {
      return { ticket: this.#ticket(request, plan, decision.org, 'quota', 0, reservation.balance), error: new ApiError('CU_QUOTA_EXCEEDED') };
    }
    if (decision.outcome === 'org-exceeded') {
      const seconds = retryAfterSeconds(decision.retryAfterMs);
      return {
        ticket: this.#ticket(request, plan, decision.org, 'org-rate', credits, reservation.balance),
        error: new ApiError('ORG_RATE_LIMITED', retryAfter(seconds)),
      };
    }
    if (stage === 'limits') {
      // The service behind Envoy reserves and charges an admitted request; here it was only a check.
      const balance = this.#deps.ledger.adjust(request.principal.organization.id, -credits) ?? reservation.balance;
      return { ticket: this.#ticket(request, plan, decision.org, undefined, 0, balance), error: undefined };
    }
    return { ticket: this.#ticket(request, plan, decision.org, undefined, credits, reservation.balance), error: undefined };
  }

  /**
   * A method rather than a closure made in `admit`: tsx compiles with esbuild's `keepNames`,
   * which names every closure when it is created (an `Object.defineProperty`), ~3 µs a request
   * here (docs/benchmarks.md, "HTTP layer").
   */
  #ticket(
    request: MeteredRequest, plan: Plan, org: OrgRateState, refusal: MeterTicket['refusal'], reserved: number, credit: CreditBalance,
  ): MeterTicket {
    if (refusal) this.#deps.instruments?.rateLimitRejections.inc({ kind: REJECTION_KIND[refusal] });
    return { request, plan, reserved, units: 1, refusal, org, credit, settled: false, extended: 0, held: 0 };
  }

  /**
   * The one way to charge more after admission (RequestPipeline.charge):
   * - `{units}`: the request turned out to carry `units` operations at the route's price (a
   *   JSON-RPC batch is one HTTP request, charged per call); sets the count charged when the
   *   request settles, reserving the credits of any extra units now. Rate limits stay per
   *   request: admission counted this one.
   * - `{credits}`: what an admitted call keeps delivering (a streamed gRPC message, a Warp event,
   *   a JSON-RPC notification, a connection minute): not rate limited, only bounded by the
   *   balance; always charged. Before settlement it is charged with the request; after it (a
   *   long-lived connection), at once, with its own usage row under `route`. `fromHold` turns
   *   credits taken by `hold` into a charge instead of taking new ones.
   * Returns 429 CU_QUOTA_EXCEEDED (taking nothing) when the balance cannot cover it.
   */
  async charge(ticket: MeterTicket, amount: ChargeAmount): Promise<ApiError | undefined> {
    if (ticket.refusal) throw new ApiError('INTERNAL_ERROR', { message: 'a refused request cannot be charged' });
    const organizationId = ticket.request.principal.organization.id;
    if ('units' in amount) {
      const extra = (amount.units - ticket.units) * admissionCredits(ticket.request.cost);
      if (ticket.settled) throw new ApiError('INTERNAL_ERROR', { message: 'units are sized before the request settles' });
      if (extra > 0) {
        const reservation = await this.#deps.ledger.reserve(organizationId, extra);
        ticket.credit = reservation.balance;
        if (!reservation.ok) return new ApiError('CU_QUOTA_EXCEEDED');
        ticket.reserved += extra;
      }
      ticket.units = Math.max(0, amount.units);
      return undefined;
    }
    const credits = amount.credits;
    // Held credits are already taken; anything beyond them is taken now.
    const fromHold = amount.fromHold ? Math.min(credits, ticket.held) : 0;
    if (credits > fromHold) {
      const reservation = await this.#deps.ledger.reserve(organizationId, credits - fromHold);
      ticket.credit = reservation.balance;
      if (!reservation.ok) return new ApiError('CU_QUOTA_EXCEEDED');
    }
    ticket.held -= fromHold;
    if (!ticket.settled) {
      ticket.extended += credits;
      return undefined;
    }
    this.#record(ticket, amount.route ?? ticket.request.route, credits);
    return undefined;
  }

  /**
   * Takes `credits` from the balance for something sent but not yet delivered (a Warp event
   * waits for its ack): `charge(…, {fromHold: true})` when it is delivered, `release` when it
   * never is. False when the balance cannot cover it.
   */
  async hold(ticket: MeterTicket, credits: number): Promise<boolean> {
    const reservation = await this.#deps.ledger.reserve(ticket.request.principal.organization.id, credits);
    ticket.credit = reservation.balance;
    if (!reservation.ok) return false;
    ticket.held += credits;
    return true;
  }

  /** Gives back held credits that were never delivered (the connection closed before the ack). */
  release(ticket: MeterTicket, credits: number): void {
    const released = Math.min(credits, ticket.held);
    if (released <= 0) return;
    ticket.held -= released;
    ticket.credit = this.#deps.ledger.adjust(ticket.request.principal.organization.id, -released) ?? ticket.credit;
  }

  /**
   * Pushes (PushPayer): `holdPush` takes `credits` for something about to be sent (false when the
   * balance cannot cover it), `chargePush` charges them once it was delivered (its usage row under
   * `route`, the credits metric), `releasePush` gives them back when it was not. As `hold`,
   * `charge(…, {fromHold})` and `release` for a connection's events, without a request.
   */
  async holdPush(payer: PushPayer, credits: number): Promise<boolean> {
    return (await this.#deps.ledger.reserve(payer.organizationId, credits)).ok;
  }

  chargePush(payer: PushPayer, credits: number, route: string): void {
    this.#recordUsage(payer.organizationId, payer.plan.id, payer.payerId, payer.network, route, credits);
  }

  releasePush(payer: PushPayer, credits: number): void {
    this.#deps.ledger.adjust(payer.organizationId, -credits);
  }

  /**
   * Charges the request by the spec's rules, records its usage and returns the response headers.
   * Idempotent per ticket (an adapter may reach it twice on an error path).
   */
  settle(ticket: MeterTicket, answered: ChargeOutcome): Record<string, string> {
    if (!ticket.settled) {
      ticket.settled = true;
      const outcome: ChargeOutcome = ticket.refusal ? { kind: ticket.refusal } : answered;
      // An answered request is charged per unit; flat prices stay flat; what it delivered (`charge` in credits) is always charged.
      const perUnit = creditsCharged(ticket.request.cost, outcome);
      const charged = (outcome.kind === 'answered' ? perUnit * ticket.units : perUnit) + ticket.extended;
      ticket.credit = this.#deps.ledger.adjust(ticket.request.principal.organization.id, charged - ticket.reserved - ticket.extended) ?? ticket.credit;
      if (!isFree(ticket.request.cost)) this.#record(ticket, ticket.request.route, charged);
      this.#credits?.remaining(ticket.request.principal.organization.id).set(ticket.credit.remaining);
    }
    return headersOf(ticket);
  }

  /** The headers `settle` returns, read without settling (a WebSocket upgrade's 101). */
  headers(ticket: MeterTicket): Record<string, string> {
    return headersOf(ticket);
  }

  /**
   * Settles a refusal whose answer was never delivered (behind Envoy: the ratelimit service's
   * answer past Envoy's deadline, so Envoy let the request through and the service behind it
   * charges it): nothing charged, no usage row, the credits reserved for it given back.
   * Idempotent with `settle`: a settled ticket stays as it is.
   */
  abandon(ticket: MeterTicket): void {
    if (ticket.settled) return;
    ticket.settled = true;
    ticket.credit = this.#deps.ledger.adjust(ticket.request.principal.organization.id, -ticket.reserved - ticket.extended) ?? ticket.credit;
  }

  /**
   * The organization's `X-RateLimit-*` headers, read without consuming: for a request refused
   * before the limit stage (an identified key's 403 from authentication), which is not charged.
   * At once when the limiter can read without waiting (`checkNow`), a promise otherwise.
   */
  rateHeaders(principal: Principal): Record<string, string> | Promise<Record<string, string>> {
    const read: LimitCheck = { caps: [], org: orgRule(principal, planOf(principal.organization)), quantity: 0 };
    const now = this.#deps.limiter.checkNow(read);
    if (now) return rateHeadersOf(now.org);
    return this.#deps.limiter.check(read).then((decision) => rateHeadersOf(decision.org));
  }

  /** One usage row and the credits metric, so `/v1/usage` and `suigw_credits_consumed_total` always agree. */
  #record(ticket: MeterTicket, route: string, credits: number): void {
    const { principal, network } = ticket.request;
    this.#recordUsage(principal.organization.id, ticket.plan.id, principal.keyId, network, route, credits);
  }

  #recordUsage(organizationId: string, planId: string, keyId: string, network: string, route: string, credits: number): void {
    if (credits > 0) this.#credits?.consumed(organizationId, planId).inc(credits);
    this.#deps.usage.record({ organizationId, keyId, network, route, credits });
  }
}

function orgRule(principal: Principal, plan: Plan): LimitRule {
  return { key: `org:${principal.organization.id}`, perSecond: plan.orgRps, burst: plan.orgRps };
}

/**
 * Management calls' own allowances, apart from the data plane's: the plan's rate, with a burst of
 * ten seconds' worth (a script that sets up keys, streams and webhooks at once is not refused).
 * Writes and reads each have one, so a dashboard polling its reads never holds back a write (the
 * disabling of a leaked key) and writes never lock the reads out.
 */
function managementRule(request: MeteredRequest, plan: Plan): LimitRule {
  const kind = request.route.startsWith('GET ') || request.route.startsWith('HEAD ') ? 'mgmt-read' : 'mgmt';
  return { key: `${kind}:${request.principal.organization.id}`, perSecond: plan.orgRps, burst: plan.orgRps * MANAGEMENT_BURST_SECONDS };
}

const MANAGEMENT_BURST_SECONDS = 10;

/** The one free route answered from the principal alone, with no database or chain read. */
const PRINCIPAL_ONLY_ROUTE = 'GET /v1/auth/me';

/**
 * A free call that counts against a management allowance: every one but `GET /v1/auth/me` of a
 * key without caps (the fast path: it reads nothing a tenant could flood).
 */
function managementLimited(request: MeteredRequest): boolean {
  if (request.route !== PRINCIPAL_ONLY_ROUTE) return true;
  // Read without building the caps: this runs on every auth/me.
  const { perKeyRps, perIpRps } = request.principal.rateLimit;
  return isCap(perKeyRps) || isCap(perIpRps);
}

/** A key's per-key or per-IP cap is set (null or 0: none). */
function isCap(perSecond: number | null): perSecond is number {
  return perSecond !== null && perSecond > 0;
}

function capsOf(request: MeteredRequest): LimitRule[] {
  const { perKeyRps, perIpRps } = request.principal.rateLimit;
  const caps: LimitRule[] = [];
  if (isCap(perKeyRps)) caps.push({ key: `key:${request.principal.keyId}`, perSecond: perKeyRps, burst: perKeyRps });
  if (isCap(perIpRps)) {
    caps.push({ key: `ip:${request.principal.keyId}:${request.clientIp}`, perSecond: perIpRps, burst: perIpRps });
  }
  return caps;
}

function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Every settled request's headers, as one literal: adding properties later would grow the object on the hot path. */
function headersOf(ticket: MeterTicket): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(ticket.org.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(ticket.org.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(Math.ceil(ticket.org.resetAtMs / 1000)),
    [RATE_LIMIT_HEADERS.creditRemaining]: String(ticket.credit.remaining),
    [RATE_LIMIT_HEADERS.creditReplenishDate]: replenishDate(ticket.credit.replenishAtMs),
  };
}

/** The organization's rate alone (`headersOf`'s first three), for a refusal that has no ticket. */
function rateHeadersOf(org: OrgRateState): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(org.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(org.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(Math.ceil(org.resetAtMs / 1000)),
  };
}

/** The replenish date is the same for every organization for a month: formatted once, not per response. */
let lastReplenish: { atMs: number; iso: string } | undefined;

function replenishDate(atMs: number): string {
  if (lastReplenish?.atMs !== atMs) lastReplenish = { atMs, iso: new Date(atMs).toISOString() };
  return lastReplenish.iso;
}
