import type { Clock } from '../../core/index.js';
import type { MeterTicket } from '../../metering/index.js';
import type { RequestPipeline } from '../../pipeline/index.js';

/** Credits of a Warp connection (docs/costs.md): each delivered event and each started connection minute. */
export const WARP_COSTS = { event: 1, connectionMinute: 1 } as const;

/**
 * What a delivery session pays for its events (DeliverySession): `beforeSend` takes the credit
 * (false: spent), `acked` says events were delivered, `release` gives back what never was.
 */
export interface EventCharges {
  beforeSend(): Promise<boolean>;
  /** `count` events acknowledged; `held`: they were sent on this connection (their credit was taken by `beforeSend`). */
  acked(count: number, held: boolean): Promise<void>;
  /** Gives back the credits `beforeSend` held for `count` events that will not be acknowledged here. */
  release(count: number): void;
}

/**
 * A stream connection's charges through the pipeline's one `charge`, on the connection's ticket
 * (its upgrade): not rate limited, because delivered events are not (spec: Events, rule 5).
 * - WebSocket (exactly-once): an event counts as delivered after the client's ack. Its credit
 *   is held when it is sent (so spent credits stop delivery) and charged on the ack; a
 *   connection that closes first gives it back, and the redelivery is charged once, on its ack.
 *   Events a resumed client acknowledges with `lastEventId` were delivered: charged then.
 * - SSE (at-least-once, no acks): charged when written, a resume's redelivery too (the spec's
 *   "redelivered" events are delivered again), bounded by the 30 s redelivery window
 *   (docs/streams.md, "SSE redeliveries").
 * Without metering (SUIGW_METERING=off) the pipeline takes nothing.
 */
export class WarpCharges implements EventCharges {
  readonly #pipeline: RequestPipeline;
  readonly #ticket: MeterTicket | undefined;
  readonly #acks: 'client' | 'window';

  constructor(pipeline: RequestPipeline, ticket: MeterTicket | undefined, acks: 'client' | 'window') {
    this.#pipeline = pipeline;
    this.#ticket = ticket;
    this.#acks = acks;
  }

  async beforeSend(): Promise<boolean> {
    if (this.#acks === 'client') return this.#pipeline.hold(this.#ticket, WARP_COSTS.event);
    return (await this.#pipeline.charge(this.#ticket, { credits: WARP_COSTS.event, route: 'WARP event' })) === undefined;
  }

  async acked(count: number, held: boolean): Promise<void> {
    if (this.#acks !== 'client' || count <= 0) return;
    // A held credit is already taken, so its charge cannot fail. Events acknowledged by a resume
    // are charged from the balance; when it cannot cover them nothing is taken, and the next send
    // finds the credits spent (quota_exceeded).
    await this.#pipeline.charge(this.#ticket, { credits: count * WARP_COSTS.event, route: 'WARP event', fromHold: held });
  }

  release(count: number): void {
    if (this.#acks === 'client' && count > 0) this.#pipeline.release(this.#ticket, count * WARP_COSTS.event);
  }

  async minute(): Promise<boolean> {
    return (await this.#pipeline.charge(this.#ticket, { credits: WARP_COSTS.connectionMinute, route: 'WARP connection minute' })) === undefined;
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
