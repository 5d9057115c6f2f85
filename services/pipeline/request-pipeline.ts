import type { ApiError } from '../core/index.js';
import { AccessRefusal, decideAccess, type AccessRequest, type Authenticator, type Principal, type RequestAccess } from '../identity/index.js';
import type { AdmissionStage, ChargeAmount, ChargeOutcome, Meter, MeteredRequest, MeterTicket, PushPayer } from '../metering/index.js';

/** One call as the pipeline sees it once its caller is known: who, from where, what route, at what price. */
export type PipelineCall = MeteredRequest;

/**
 * What admission decided. `ticket` is what the later stages charge and settle; it is undefined
 * when metering is off (SUIGW_METERING=off: nothing is limited or charged), and every stage
 * accepts that. `error`: the refusal to answer with (the ticket still settles, by the spec's rules).
 */
export interface PipelineAdmission {
  ticket: MeterTicket | undefined;
  error: ApiError | undefined;
}

export interface RequestPipelineParts {
  authenticator: Authenticator;
  /** Absent when metering is off. */
  meter: Meter | undefined;
}

const UNMETERED: PipelineAdmission = Object.freeze({ ticket: undefined, error: undefined });

/**
 * THE request pipeline (stages.ts: authenticate → limit → handle → meter): every transport
 * adapter (the fastify hooks, the gRPC proxy and reflection, the Warp and JSON-RPC WebSockets,
 * Envoy's ext_authz and ratelimit services) calls it and nothing else, so access, limits and
 * charges mean the same on every transport and with every setting.
 */
export class RequestPipeline {
  readonly #authenticator: Authenticator;
  readonly #meter: Meter | undefined;

  constructor(parts: RequestPipelineParts) {
    this.#authenticator = parts.authenticator;
    this.#meter = parts.meter;
  }

  /** `#refused` for a lookup's rejection, bound once (not a closure per request). */
  readonly #onRefused = (error: unknown): Promise<never> => this.#refused(error);

  /** Whether calls are limited and charged (SUIGW_METERING). */
  get metered(): boolean {
    return this.#meter !== undefined;
  }

  /**
   * The authenticate stage for a routed request (HTTP, ext_authz): the route's rule, the key's
   * network, scope, origin and expiry; `undefined` for public routes. At once when cached.
   * A 403 refusing an identified key carries its organization's `X-RateLimit-*` headers
   * (`refused`); nothing is charged, the request never reaches the limit stage.
   */
  authenticate(access: RequestAccess): Principal | undefined | Promise<Principal | undefined> {
    let decided: Principal | undefined | Promise<Principal | undefined>;
    try {
      decided = decideAccess(this.#authenticator, access);
    } catch (error) {
      return this.#refused(error);
    }
    // Only a lookup (a key not cached) waits; without a meter there are no headers to add.
    return decided instanceof Promise && this.#meter ? decided.then(undefined, this.#onRefused) : decided;
  }

  /**
   * Rethrows an authentication failure; an identified key's refusal (AccessRefusal) first gets
   * the organization's `X-RateLimit-*` headers (spec: Limits, "on every response"), read without
   * consuming. Thrown at once when the limiter can read without waiting, else a promise that
   * rejects; if the read fails the refusal goes out as it was.
   */
  #refused(error: unknown): Promise<never> {
    if (!(error instanceof AccessRefusal) || !this.#meter) throw error;
    const headers = this.#meter.rateHeaders(error.principal);
    if (!(headers instanceof Promise)) throw error.withHeaders(headers);
    return headers.then(
      (read) => Promise.reject(error.withHeaders(read)),
      () => Promise.reject(error),
    );
  }

  /** The authenticate stage for a transport with one fixed rule (the gRPC proxy): the key or the spec's ApiError. */
  authenticateKey(apiKey: string | undefined, access: AccessRequest): Principal | Promise<Principal> {
    return this.#authenticator.authenticateCached(apiKey, access) ?? this.#authenticator.authenticate(apiKey, access);
  }

  /**
   * The limit stage: per-key and per-IP caps, the organization's plan rate, its credits. Behind
   * Envoy `stage` splits it (AdmissionStage). Without metering every call is admitted, free.
   */
  admit(call: PipelineCall, stage: AdmissionStage = 'whole'): Promise<PipelineAdmission> {
    if (!this.#meter) return Promise.resolve(UNMETERED);
    return this.#meter.admit(call, stage);
  }

  /** `admit` decided without waiting, or undefined when only `admit` can decide (nothing was taken then). */
  admitNow(call: PipelineCall, stage: AdmissionStage = 'whole'): PipelineAdmission | undefined {
    if (!this.#meter) return UNMETERED;
    return this.#meter.admitNow(call, stage);
  }

  /**
   * The one way to charge after admission (Meter.charge): `{units}` sizes a request that carries
   * several operations, `{credits}` pays for what a call keeps delivering. Returns 429
   * CU_QUOTA_EXCEEDED, taking nothing, when the balance cannot cover it.
   */
  async charge(ticket: MeterTicket | undefined, amount: ChargeAmount): Promise<ApiError | undefined> {
    if (!ticket || !this.#meter) return undefined;
    return this.#meter.charge(ticket, amount);
  }

  /** Takes credits for something sent and not yet delivered (a Warp event until its ack); false when they ran out. */
  async hold(ticket: MeterTicket | undefined, credits: number): Promise<boolean> {
    if (!ticket || !this.#meter) return true;
    return this.#meter.hold(ticket, credits);
  }

  /** Gives back held credits never delivered. */
  release(ticket: MeterTicket | undefined, credits: number): void {
    if (ticket && this.#meter) this.#meter.release(ticket, credits);
  }

  /**
   * What the gateway pushes without a request (a webhook delivery) pays as a held event does:
   * `holdPush` before sending (false: credits spent), `chargePush` once delivered, `releasePush`
   * when not. Without metering nothing is held or charged.
   */
  async holdPush(payer: PushPayer, credits: number): Promise<boolean> {
    return this.#meter ? this.#meter.holdPush(payer, credits) : true;
  }

  chargePush(payer: PushPayer, credits: number, route: string): void {
    this.#meter?.chargePush(payer, credits, route);
  }

  releasePush(payer: PushPayer, credits: number): void {
    this.#meter?.releasePush(payer, credits);
  }

  /**
   * Settles a refusal that never reached its caller: nothing charged or recorded, its reserved
   * credits given back (Meter.abandon). Without metering there is nothing to give back.
   */
  abandon(ticket: MeterTicket | undefined): void {
    if (ticket && this.#meter) this.#meter.abandon(ticket);
  }

  /**
   * The rate-limit and credit headers of an admitted call before it is settled (the credit with
   * its price reserved): a WebSocket upgrade's 101, written before its route knows the outcome.
   */
  answerHeaders(ticket: MeterTicket | undefined): Record<string, string> {
    if (!ticket || !this.#meter) return {};
    return this.#meter.headers(ticket);
  }

  /**
   * The meter stage: charges the call by the spec's rules from its outcome, records its usage and
   * returns the rate-limit and credit headers (none without metering). Idempotent per ticket.
   */
  settle(ticket: MeterTicket | undefined, outcome: ChargeOutcome): Record<string, string> {
    if (!ticket || !this.#meter) return {};
    return this.#meter.settle(ticket, outcome);
  }
}
