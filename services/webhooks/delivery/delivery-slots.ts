import type { Clock } from '../../core/index.js';

/** How delivery attempts share a process, so that one tenant's slow receivers cannot hold everyone's. */
export interface DeliveryFairness {
  /** Attempts in flight at once in the process. */
  total: number;
  /** Attempts in flight at once to one webhook endpoint. */
  perEndpoint: number;
  /** Attempts in flight at once for one organization, over all its endpoints. */
  perOrganization: number;
  /** Consecutive attempts without an answer in time after which the endpoint's circuit opens. */
  timeoutsToOpen: number;
  /** How long an opened circuit keeps the endpoint out; doubled at each re-opening, up to `maxOpenMs`. */
  openMs: number;
  maxOpenMs: number;
}

export const DELIVERY_FAIRNESS: DeliveryFairness = {
  total: 32,
  perEndpoint: 4,
  perOrganization: 8,
  timeoutsToOpen: 3,
  openMs: 30_000,
  maxOpenMs: 10 * 60_000,
};

/**
 * What an attempt says of its endpoint: it answered (any status, or a connection error, which
 * answers fast), it ran out of time, or it was never sent (held for credits, or it failed before
 * the POST): an untried attempt leaves the circuit as it was.
 */
export type EndpointVerdict = 'answered' | 'timed-out' | 'untried';

interface EndpointState {
  inFlight: number;
  /** Attempts in a row that timed out (reset by any answer). */
  timeouts: number;
  /** While now < openUntil the endpoint is not attempted; after it, one probe at a time (half-open). */
  openUntil: number;
  openMs: number;
}

/**
 * The process's delivery slots, counted per endpoint (webhook) and per organization, with one
 * circuit per endpoint: an endpoint whose attempts keep running out of time is left out for a
 * while, then probed one attempt at a time, so it holds no slot another organization could use.
 * Pure bookkeeping on the one clock; the dispatcher asks before each attempt and reports after.
 */
export class DeliverySlots {
  readonly limits: DeliveryFairness;
  readonly #clock: Clock;
  readonly #endpoints = new Map<string, EndpointState>();
  readonly #organizations = new Map<string, number>();
  #inFlight = 0;

  constructor(limits: DeliveryFairness, clock: Clock) {
    this.limits = limits;
    this.#clock = clock;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  free(): number {
    return Math.max(0, this.limits.total - this.#inFlight);
  }

  inFlightOf(organizationId: string): number {
    return this.#organizations.get(organizationId) ?? 0;
  }

  inFlightTo(webhookId: string): number {
    return this.#endpoints.get(webhookId)?.inFlight ?? 0;
  }

  /** Open (not yet due for a probe), or probing: the circuit's state for the delivery log and tests. */
  circuitOf(webhookId: string): 'closed' | 'open' | 'half-open' {
    const state = this.#endpoints.get(webhookId);
    if (!state || state.openUntil === 0) return 'closed';
    return this.#clock.now() < state.openUntil ? 'open' : 'half-open';
  }

  /** Endpoints that may not start an attempt now: at their limit, or their circuit open. */
  blockedEndpoints(): string[] {
    return [...this.#endpoints].filter(([id, state]) => state.inFlight >= this.#endpointLimit(id)).map(([id]) => id);
  }

  blockedOrganizations(): string[] {
    return [...this.#organizations].filter(([, count]) => count >= this.limits.perOrganization).map(([id]) => id);
  }

  /** Takes a slot for one attempt, or says no (the delivery is then released for later). */
  take(webhookId: string, organizationId: string): boolean {
    const state = this.#endpoints.get(webhookId) ?? { inFlight: 0, timeouts: 0, openUntil: 0, openMs: 0 };
    const organization = this.#organizations.get(organizationId) ?? 0;
    if (this.#inFlight >= this.limits.total || organization >= this.limits.perOrganization) return false;
    if (state.inFlight >= this.#limitOf(state)) return false;
    state.inFlight += 1;
    this.#endpoints.set(webhookId, state);
    this.#organizations.set(organizationId, organization + 1);
    this.#inFlight += 1;
    return true;
  }

  /**
   * Gives the slot back with what the attempt came to: any answer closes the circuit, a timeout
   * counts toward opening it, an attempt never sent changes nothing (a half-open circuit's probe
   * held for credits is still to be made).
   */
  release(webhookId: string, organizationId: string, verdict: EndpointVerdict): void {
    const state = this.#endpoints.get(webhookId);
    if (state) {
      state.inFlight -= 1;
      if (verdict === 'timed-out') this.#timedOut(state);
      else if (verdict === 'answered') Object.assign(state, { timeouts: 0, openUntil: 0, openMs: 0 });
      if (state.inFlight === 0 && state.openUntil === 0 && state.timeouts === 0) this.#endpoints.delete(webhookId);
    }
    const organization = (this.#organizations.get(organizationId) ?? 1) - 1;
    if (organization > 0) this.#organizations.set(organizationId, organization);
    else this.#organizations.delete(organizationId);
    this.#inFlight -= 1;
  }

  #timedOut(state: EndpointState): void {
    state.timeouts += 1;
    const now = this.#clock.now();
    const probing = state.openUntil !== 0 && now >= state.openUntil;
    if (!probing && state.timeouts < this.limits.timeoutsToOpen) return;
    state.openMs = state.openMs === 0 ? this.limits.openMs : Math.min(state.openMs * 2, this.limits.maxOpenMs);
    state.openUntil = now + state.openMs;
  }

  #endpointLimit(webhookId: string): number {
    const state = this.#endpoints.get(webhookId);
    return state ? this.#limitOf(state) : this.limits.perEndpoint;
  }

  #limitOf(state: EndpointState): number {
    if (state.openUntil === 0) return this.limits.perEndpoint;
    return this.#clock.now() < state.openUntil ? 0 : 1;
  }
}
