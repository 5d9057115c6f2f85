import type { Clock, Logger } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import { pausedWebhookIds } from '../definitions/pause.js';
import type { SecretBox } from '../definitions/signing-secret.js';
import { claimDueDeliveries, recordAttempt, type ClaimedDelivery, type DeliveryStatus } from './deliveries.js';
import type { EndpointClient } from './endpoint-client.js';
import { webhookHeaders } from './signature.js';

export interface WebhookDispatcherOptions {
  database: Database;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  client: EndpointClient;
  /** Deliveries attempted at once per process. */
  concurrency?: number;
  /** How often the database is polled for due deliveries when nothing wakes the dispatcher (real time). */
  pollMs?: number;
  /** How long a claimed delivery is held before another process may take it (longer than an attempt). */
  claimMs?: number;
}

/**
 * Attempts due deliveries: claims them in PostgreSQL (so every `streams` process can run one),
 * signs each attempt with the webhook's secrets (the previous one too during a rotation),
 * POSTs it and records the outcome on the retry schedule. Time comes from the clock: tests move
 * it and call `runDue()`; in a process, a timer and `wake()` (new events) call it.
 */
export class WebhookDispatcher {
  readonly #o: WebhookDispatcherOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  #again = false;

  constructor(options: WebhookDispatcherOptions) {
    this.#o = options;
  }

  start(): void {
    this.#timer = setInterval(() => this.wake(), this.#o.pollMs ?? 1_000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** Runs a pass soon (events were queued) once started; passes never overlap. */
  wake(): void {
    if (this.#timer === undefined) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.runDue().catch((error: unknown) => {
      this.#o.logger.warn({ err: error }, 'webhook delivery pass failed');
      return 0;
    }).finally(() => {
      this.#running = undefined;
      if (this.#again && this.#timer !== undefined) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Attempts every delivery due now, batch by batch; returns how many attempts were made. */
  async runDue(): Promise<number> {
    const { database, clock } = this.#o;
    const concurrency = this.#o.concurrency ?? 16;
    const claimMs = this.#o.claimMs ?? 120_000;
    const paused = await pausedWebhookIds(database);
    let attempted = 0;
    for (;;) {
      const now = clock.now();
      const batch = await claimDueDeliveries(database, { now, claimUntil: now + claimMs, limit: concurrency, paused });
      if (batch.length === 0) return attempted;
      await Promise.all(batch.map((delivery) => this.attempt(delivery)));
      attempted += batch.length;
    }
  }

  /** One attempt of one claimed delivery, recorded; returns the delivery's new status. */
  async attempt(delivery: ClaimedDelivery): Promise<DeliveryStatus> {
    const { clock, box, client, database } = this.#o;
    const now = clock.now();
    const secrets = [box.open(delivery.webhookId, delivery.secretSealed)];
    if (delivery.previousSecretSealed !== null && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt.getTime() > now) {
      secrets.push(box.open(delivery.webhookId, delivery.previousSecretSealed));
    }
    const headers = webhookHeaders(delivery.id, Math.floor(now / 1_000), delivery.body, secrets);
    const outcome = await client.post(delivery.url, headers, delivery.body, () => clock.now());
    const status = await recordAttempt(database, delivery, clock.now(), outcome);
    if (status === 'failed') this.#o.logger.info({ webhookId: delivery.webhookId, deliveryId: delivery.id, responseStatus: outcome.status }, 'webhook delivery failed for good');
    return status;
  }
}
