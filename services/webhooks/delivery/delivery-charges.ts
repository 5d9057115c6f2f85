import type { PushPayer } from '../../metering/index.js';
import type { RequestPipeline } from '../../pipeline/index.js';
import type { ClaimedDelivery } from './deliveries.js';

/** Credits of a webhook delivery (docs/costs.md): as a Warp event, 1 per delivery the receiver acknowledged. */
export const WEBHOOK_COSTS = { delivery: 1 } as const;

/** The usage route of delivered webhook events (`GET /v1/usage`), beside Warp's `WARP event`. */
export const WEBHOOK_DELIVERY_ROUTE = 'WEBHOOK delivery';

/**
 * What an attempt pays, through the request pipeline's charges as a Warp WebSocket event does:
 * the credit is held when the attempt is sent (so spent credits stop deliveries, and attempts
 * in flight never spend more than the balance), charged when the receiver answers 2xx, and given
 * back when it does not (a failed attempt, or a retry that fails, is free). Without metering
 * (SUIGW_METERING=off) the pipeline holds and charges nothing.
 */
export class DeliveryCharges {
  readonly #pipeline: RequestPipeline;

  constructor(pipeline: RequestPipeline) {
    this.#pipeline = pipeline;
  }

  /** Takes the attempt's credit; false when the organization's credits are spent (nothing taken). */
  hold(delivery: ClaimedDelivery): Promise<boolean> {
    return this.#pipeline.holdPush(payerOf(delivery), WEBHOOK_COSTS.delivery);
  }

  /** The receiver acknowledged it: the held credit is charged (a usage row, the credits metric). */
  delivered(delivery: ClaimedDelivery): void {
    this.#pipeline.chargePush(payerOf(delivery), WEBHOOK_COSTS.delivery, WEBHOOK_DELIVERY_ROUTE);
  }

  /** The attempt failed: its held credit is given back. */
  failed(delivery: ClaimedDelivery): void {
    this.#pipeline.releasePush(payerOf(delivery), WEBHOOK_COSTS.delivery);
  }
}

function payerOf(delivery: ClaimedDelivery): PushPayer {
  return { organizationId: delivery.organizationId, plan: delivery.plan, network: delivery.network, payerId: delivery.webhookId };
}
