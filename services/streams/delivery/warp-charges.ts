import type { Clock } from '../../core/index.js';
import type { Principal } from '../../identity/index.js';
import { planOf, type Metering } from '../../metering/index.js';

/** Credits of a Warp connection (docs/costs.md): each delivered event and each started connection minute. */
export const WARP_COSTS = { event: 1, connectionMinute: 1 } as const;

/**
 * Charges a stream connection through the metering module's ledger and usage recorder: not
 * through the limit stage, because delivered events are not rate limited (spec: Events, rule 5);
 * the per-key/per-IP caps were counted once, when the connection was admitted.
 */
export class WarpCharges {
  readonly #metering: Pick<Metering, 'ledger' | 'usage'> | undefined;
  readonly #principal: Principal;
  readonly #network: string;

  /** Without `metering` (SUIGW_METERING=off) every charge succeeds and nothing is recorded. */
  constructor(metering: Pick<Metering, 'ledger' | 'usage'> | undefined, principal: Principal, network: string) {
    this.#metering = metering;
    this.#principal = principal;
    this.#network = network;
  }

  event(): Promise<boolean> {
    return this.#charge(WARP_COSTS.event, 'WARP event');
  }

  minute(): Promise<boolean> {
    return this.#charge(WARP_COSTS.connectionMinute, 'WARP connection minute');
  }

  async #charge(credits: number, route: string): Promise<boolean> {
    if (!this.#metering) return true;
    const organization = this.#principal.organization;
    const { ok } = await this.#metering.ledger.reserve(organization.id, planOf(organization), credits);
    if (!ok) return false;
    this.#metering.usage.record({ organizationId: organization.id, keyId: this.#principal.keyId, network: this.#network, route, credits });
    return true;
  }
}

const MINUTE_MS = 60_000;

/**
 * The connection minutes a connection has started on the clock, each charged once: minute 1 at
 * connect, minute n + 1 once n × 60 s have passed. Called on a timer; a call while one is still
 * charging does nothing (the next call catches up).
 */
export class StartedMinutes {
  readonly #clock: Clock;
  readonly #openedAt: number;
  readonly #chargeOne: () => Promise<boolean>;
  #charged = 0;
  #charging = false;

  constructor(clock: Clock, chargeOne: () => Promise<boolean>) {
    this.#clock = clock;
    this.#openedAt = clock.now();
    this.#chargeOne = chargeOne;
  }

  /** Charges the minutes started and not yet charged; false when credits ran out. */
  async charge(): Promise<boolean> {
    if (this.#charging) return true;
    this.#charging = true;
    try {
      const started = Math.floor((this.#clock.now() - this.#openedAt) / MINUTE_MS) + 1;
      while (this.#charged < started) {
        if (!(await this.#chargeOne())) return false;
        this.#charged += 1;
      }
      return true;
    } finally {
      this.#charging = false;
    }
  }
}
