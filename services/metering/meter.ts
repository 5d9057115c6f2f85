import { ApiError, type Metrics, type RateLimitKind } from '../core/index.js';
import type { Principal } from '../identity/index.js';
import { admissionCredits, creditsCharged, isFree, type ChargeOutcome, type RouteCost } from './costs.js';
import type { CreditBalance, CreditLedger } from './credits.js';
import type { LimitDecision, LimitRule, OrgRateState, RateLimiter } from './limiter.js';
import { planOf, type Plan } from './plans.js';
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
  readonly plan: Plan;
  /** Credits taken from the balance at admission (the success price, or 0), plus any `reserveUnits`. */
  reserved: number;
  /**
   * How many operations at the route's price the answered request is charged for: 1, except
   * for requests that carry several operations (a JSON-RPC batch, see `reserveUnits`).
   */
  units: number;
  /** Set when the limit stage refused the request. */
  readonly refusal: 'key-cap' | 'org-rate' | 'quota' | undefined;
  /** Credits taken after admission for what the call delivered (streamed messages); always charged. */
  extended: number;
  org: OrgRateState;
  credit: CreditBalance;
  settled: boolean;
}

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
  /** Credits charged per organization and plan, 429s per kind. */
  instruments?: MeterInstruments;
}

/** The Prometheus instruments the meter records on (services/core/metrics.ts). */
export type MeterInstruments = Pick<Metrics, 'creditsConsumed' | 'rateLimitRejections'>;

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

  constructor(deps: MeterDeps) {
    this.#deps = deps;
  }

  /**
   * Per-key and per-IP caps, then the organization's plan rate, then its credits. Free routes
   * (management) are not limited and work at zero balance: they only read the state for headers.
   * `stage` says who runs which part when Envoy is in front (see `AdmissionStage`).
   */
  async admit(request: MeteredRequest, stage: AdmissionStage = 'whole'): Promise<Admission> {
    const plan = planOf(request.principal.organization);
    const free = isFree(request.cost);
    // Behind Envoy the service only reads the organization's state: the ratelimit service consumed it.
    const limited = !free && stage !== 'credits';
    const decision = await this.#deps.limiter.check({
      caps: limited ? capsOf(request) : [],
      org: orgRule(request, plan),
      quantity: limited ? 1 : 0,
    });
    if (decision.outcome === 'cap-exceeded') {
      const credit = await this.#deps.ledger.balance(request.principal.organization.id, plan);
      const seconds = retryAfterSeconds(decision.retryAfterMs);
      // Spec: not billed, and the answer does not say which cap.
      return {
        ticket: this.#ticket(request, plan, decision.org, 'key-cap', 0, credit),
        error: new ApiError('RATE_LIMIT_EXCEEDED', { headers: { 'retry-after': String(seconds) } }),
      };
    }
    const reservation = await this.#deps.ledger.reserve(request.principal.organization.id, plan, admissionCredits(request.cost));
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
    const limited = !isFree(request.cost) && stage !== 'credits';
    const organizationId = request.principal.organization.id;
    if ((limited && capsOf(request).length > 0) || !this.#deps.ledger.isCurrent(organizationId, plan)) return undefined;
    const decision = this.#deps.limiter.checkNow({ caps: [], org: orgRule(request, plan), quantity: limited ? 1 : 0 });
    if (decision === undefined) return undefined;
    // The account is current (checked above) and nothing awaited since: this answers.
    const reservation = this.#deps.ledger.reserveNow(organizationId, plan, admissionCredits(request.cost))!;
    return this.#admission(request, plan, stage, decision, reservation);
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
        error: new ApiError('ORG_RATE_LIMITED', { fields: { retryAfter: seconds }, headers: { 'retry-after': String(seconds) } }),
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
    return { request, plan, reserved, units: 1, refusal, org, credit, settled: false, extended: 0 };
  }

  /**
   * An admitted request turned out to carry `units` operations at the route's price (a JSON-RPC
   * batch is one HTTP request, charged per call): reserves the credits of the extra units and
   * sets `ticket.units`. Returns 429 CU_QUOTA_EXCEEDED (reserving nothing more) when the
   * credits left do not cover them; the caller answers with it, which is not charged.
   * The rate limits stay per HTTP request: admission already counted this one.
   */
  async reserveUnits(ticket: MeterTicket, units: number): Promise<ApiError | undefined> {
    const price = admissionCredits(ticket.request.cost);
    const extra = (units - ticket.units) * price;
    if (ticket.refusal || ticket.settled || extra <= 0) return undefined;
    const reservation = await this.#deps.ledger.reserve(ticket.request.principal.organization.id, ticket.plan, extra);
    ticket.credit = reservation.balance;
    if (!reservation.ok) return new ApiError('CU_QUOTA_EXCEEDED');
    ticket.reserved += extra;
    ticket.units = units;
    return undefined;
  }

  /**
   * Takes `credits` more for an admitted call that keeps delivering (a streamed gRPC message):
   * not rate limited (an open stream's messages are metered, not limited), only bounded by the
   * balance. False when the balance cannot cover them: the caller ends the stream with
   * CU_QUOTA_EXCEEDED. What was taken is charged at settlement whatever the call's outcome.
   */
  async extend(ticket: MeterTicket, credits: number): Promise<boolean> {
    const { organization } = ticket.request.principal;
    const reservation = await this.#deps.ledger.reserve(organization.id, ticket.plan, credits);
    ticket.credit = reservation.balance;
    if (!reservation.ok) return false;
    ticket.extended += credits;
    return true;
  }

  /**
   * Charges the request by the spec's rules, records its usage and returns the response headers.
   * Idempotent per ticket (an adapter may reach it twice on an error path).
   */
  settle(ticket: MeterTicket, answered: ChargeOutcome): Record<string, string> {
    if (!ticket.settled) {
      ticket.settled = true;
      const outcome: ChargeOutcome = ticket.refusal ? { kind: ticket.refusal } : answered;
      // An answered request is charged per unit (see `reserveUnits`); flat prices stay flat; streamed messages (`extend`) are always charged.
      const perUnit = creditsCharged(ticket.request.cost, outcome);
      const charged = (outcome.kind === 'answered' ? perUnit * ticket.units : perUnit) + ticket.extended;
      const { principal, network, route, cost } = ticket.request;
      ticket.credit = this.#deps.ledger.adjust(principal.organization.id, charged - ticket.reserved - ticket.extended) ?? ticket.credit;
      if (charged > 0) this.#deps.instruments?.creditsConsumed.inc({ organization: principal.organization.id, plan: ticket.plan.id }, charged);
      if (!isFree(cost)) {
        this.#deps.usage.record({ organizationId: principal.organization.id, keyId: principal.keyId, network, route, credits: charged });
      }
    }
    return headersOf(ticket);
  }
}

function orgRule(request: MeteredRequest, plan: Plan): LimitRule {
  return { key: `org:${request.principal.organization.id}`, perSecond: plan.orgRps, burst: plan.orgRps };
}

function capsOf(request: MeteredRequest): LimitRule[] {
  const { perKeyRps, perIpRps } = request.principal.rateLimit;
  const caps: LimitRule[] = [];
  if (perKeyRps !== null && perKeyRps > 0) caps.push({ key: `key:${request.principal.keyId}`, perSecond: perKeyRps, burst: perKeyRps });
  if (perIpRps !== null && perIpRps > 0) {
    caps.push({ key: `ip:${request.principal.keyId}:${request.clientIp}`, perSecond: perIpRps, burst: perIpRps });
  }
  return caps;
}

function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function headersOf(ticket: MeterTicket): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(ticket.org.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(ticket.org.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(Math.ceil(ticket.org.resetAtMs / 1000)),
    [RATE_LIMIT_HEADERS.creditRemaining]: String(ticket.credit.remaining),
    [RATE_LIMIT_HEADERS.creditReplenishDate]: replenishDate(ticket.credit.replenishAtMs),
  };
}

/** The replenish date is the same for every organization for a month: formatted once, not per response. */
let lastReplenish: { atMs: number; iso: string } | undefined;

function replenishDate(atMs: number): string {
  if (lastReplenish?.atMs !== atMs) lastReplenish = { atMs, iso: new Date(atMs).toISOString() };
  return lastReplenish.iso;
}
