import type { Clock, Logger } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import { acknowledged, recordAttempt, type AttemptOutcome, type ClaimedDelivery, type DeliveryStatus } from './deliveries.js';
import type { DeliveryCharges } from './delivery-charges.js';
import { attemptResult, type WebhookMetrics } from './webhook-metrics.js';

/**
 * An attempt made, its outcome still to be written and its credit still held. When the write
 * fails (a database error at that moment) it is written at a later pass while its claim holds,
 * so the receiver is not sent the delivery again.
 */
export interface UnrecordedAttempt {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
  /** When the receiver answered (clock ms): the attempt's time in the log. */
  at: number;
  /** The end of its claim (clock ms): from then on the delivery may be taken again, here or by another process. */
  claimUntil: number;
}

export interface AttemptRecordsOptions {
  database: Database;
  clock: Clock;
  logger: Logger;
  charges: DeliveryCharges;
  metrics?: Pick<WebhookMetrics, 'attempts'>;
}

/**
 * Writes what attempts came to and settles their held credit after the write: charged on a 2xx,
 * given back otherwise. An outcome that could not be written is kept, with its credit, and
 * written again at the dispatcher's next pass while its claim holds.
 */
export class AttemptRecords {
  readonly #o: AttemptRecordsOptions;
  /** Attempts made whose outcome is still to be written, by delivery id. */
  readonly #unrecorded = new Map<string, UnrecordedAttempt>();

  constructor(options: AttemptRecordsOptions) {
    this.#o = options;
  }

  /**
   * Writes an attempt's outcome, then charges it (a 2xx) or gives its credit back: the charge
   * follows the record, so an attempt that goes out again was never charged. When the write
   * fails, the outcome and its held credit are kept for the next pass (undefined).
   */
  async write(attempt: UnrecordedAttempt): Promise<DeliveryStatus | undefined> {
    const { database, charges, logger } = this.#o;
    const { delivery, outcome } = attempt;
    let status: DeliveryStatus;
    try {
      status = await recordAttempt(database, delivery, attempt.at, outcome);
    } catch (error) {
      this.#unrecorded.set(delivery.id, attempt);
      logger.warn({ err: error, webhookId: delivery.webhookId, deliveryId: delivery.id }, 'webhook delivery attempt failed to record: written again at the next pass');
      return undefined;
    }
    this.#unrecorded.delete(delivery.id);
    // Charged even if the webhook was cancelled meanwhile: it was delivered.
    if (acknowledged(outcome)) charges.delivered(delivery);
    else charges.failed(delivery);
    this.#o.metrics?.attempts.inc({ result: attemptResult(status) });
    if (status === 'failed') logger.info({ webhookId: delivery.webhookId, deliveryId: delivery.id, responseStatus: outcome.status }, 'webhook delivery failed for good');
    return status;
  }

  /**
   * Writes the outcomes a previous pass could not, while their claims hold (nobody else takes
   * those deliveries meanwhile). One whose claim has ended is given up, its credit given back:
   * the delivery may already be out again, here or in another process, and is charged there.
   */
  async writeUnrecorded(): Promise<void> {
    for (const attempt of [...this.#unrecorded.values()]) {
      if (this.#o.clock.now() < attempt.claimUntil) {
        await this.write(attempt);
        continue;
      }
      this.#unrecorded.delete(attempt.delivery.id);
      this.#o.charges.failed(attempt.delivery);
    }
  }
}
