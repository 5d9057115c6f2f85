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
  readonly #metering: Pick<Metering, 'ledger' | 'usage'>;
  readonly #principal: Principal;
  readonly #network: string;

  constructor(metering: Pick<Metering, 'ledger' | 'usage'>, principal: Principal, network: string) {
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
    const organization = this.#principal.organization;
    const { ok } = await this.#metering.ledger.reserve(organization.id, planOf(organization), credits);
    if (!ok) return false;
    this.#metering.usage.record({ organizationId: organization.id, keyId: this.#principal.keyId, network: this.#network, route, credits });
    return true;
  }
}
