import type { Clock, Logger } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import { pausedWebhookIds } from '../definitions/pause.js';
import type { SecretBox } from '../definitions/signing-secret.js';
import { claimDueDeliveries, recordAttempt, releaseClaims, type AttemptOutcome, type ClaimedDelivery, type DeliveryStatus } from './deliveries.js';
import { DELIVERY_FAIRNESS, DeliverySlots, type DeliveryFairness } from './delivery-slots.js';
import type { EndpointClient } from './endpoint-client.js';
import { webhookHeaders } from './signature.js';
import { attemptResult, type WebhookMetrics } from './webhook-metrics.js';

/** Free slots that make a claim worth its query while attempts are in flight. */
const CLAIM_AT_FREE_SLOTS = 4;

export interface WebhookDispatcherOptions {
  database: Database;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  client: EndpointClient;
  /** How attempts share the process (in flight in all, per endpoint, per organization; circuits). */
  fairness?: DeliveryFairness;
  /** How often the database is polled for due deliveries when nothing wakes the dispatcher (real time). */
  pollMs?: number;
  /** How long a claimed delivery is held before another process may take it (longer than an attempt). */
  claimMs?: number;
  /** Counts attempts by result (`suigw_webhook_attempts_total`). */
  metrics?: Pick<WebhookMetrics, 'attempts'>;
}

/**
 * Attempts due deliveries: claims them in PostgreSQL (so every `streams` process can run one),
 * signs each attempt with the webhook's secrets (the previous one too during a rotation),
 * POSTs it and records the outcome on the retry schedule. Time comes from the clock: tests move
 * it and call `runDue()`; in a process, a timer and `wake()` (new events) call it.
 *
 * Attempts run in slots (DeliverySlots): each one starts as soon as a slot is free, not batch
 * by batch, so a receiver that never answers holds its own slots (at most `perEndpoint`, and
 * `perOrganization` for its tenant) until its deadline, never a batch of everyone's; after a
 * few timeouts in a row its circuit opens and it is not attempted for a while.
 */
export class WebhookDispatcher {
  readonly #o: WebhookDispatcherOptions;
  readonly slots: DeliverySlots;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  #again = false;
  /** Wakes a pass waiting for a free slot or new work; a signal with no waiter is kept for the next wait. */
  #waiter: (() => void) | undefined;
  #signalled = false;

  constructor(options: WebhookDispatcherOptions) {
    this.#o = options;
    this.slots = new DeliverySlots(options.fairness ?? DELIVERY_FAIRNESS, options.clock);
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
      this.#signal();
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

  /**
   * Attempts every delivery due now that a slot can take, starting each as a slot frees; returns
   * how many attempts were made once none is due (or claimable) and none is in flight.
   */
  async runDue(): Promise<number> {
    const { database, clock } = this.#o;
    const claimMs = this.#o.claimMs ?? 120_000;
    const running = new Set<Promise<void>>();
    let attempted = 0;
    for (;;) {
      let started = 0;
      // A claim leaves out the endpoints and organizations at their limit when it is made; their
      // attempts may all finish while it waits on PostgreSQL, and then its finding nothing says
      // nothing about them. Only a claim made with nothing in flight can end the pass.
      let claimedIdle = false;
      // Each claim is a query (a few rows per live webhook): with attempts in flight, wait until a
      // few slots are free rather than claim for every slot that frees. (With none in flight every
      // slot is free.)
      if (this.slots.free() >= Math.min(CLAIM_AT_FREE_SLOTS, this.slots.limits.total)) {
        // Read at each claim: a pass can last as long as a slow receiver's deadline.
        const paused = await pausedWebhookIds(database);
        const now = clock.now();
        claimedIdle = running.size === 0;
        const { perEndpoint, perOrganization } = this.slots.limits;
        const batch = await claimDueDeliveries(database, {
          now, claimUntil: now + claimMs, limit: this.slots.free(), paused, perEndpoint, perOrganization,
          skipWebhooks: this.slots.blockedEndpoints(), skipOrganizations: this.slots.blockedOrganizations(),
        });
        const untried: string[] = [];
        for (const delivery of batch) {
          if (!this.slots.take(delivery.webhookId, delivery.organizationId)) {
            untried.push(delivery.id);
            continue;
          }
          started += 1;
          const attempt: Promise<void> = this.#attempt(delivery)
            .then(({ outcome }) => this.slots.release(delivery.webhookId, delivery.organizationId, outcome.timedOut === true))
            .catch((error: unknown) => {
              this.slots.release(delivery.webhookId, delivery.organizationId, false);
              this.#o.logger.warn({ err: error, webhookId: delivery.webhookId }, 'webhook delivery attempt failed to record');
            })
            .finally(() => {
              running.delete(attempt);
              this.#signal();
            });
          running.add(attempt);
        }
        await releaseClaims(database, untried);
        attempted += started;
      }
      if (started === 0) {
        if (running.size > 0) await this.#nextSignal();
        else if (claimedIdle) return attempted;
      }
    }
  }

  #signal(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter) waiter();
    else this.#signalled = true;
  }

  #nextSignal(): Promise<void> {
    if (this.#signalled) {
      this.#signalled = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.#waiter = resolve;
    });
  }

  /** One attempt of one claimed delivery, recorded: the delivery's new status and what the receiver did. */
  async #attempt(delivery: ClaimedDelivery): Promise<{ status: DeliveryStatus; outcome: AttemptOutcome }> {
    const { clock, box, client, database } = this.#o;
    const now = clock.now();
    const secrets = [box.open(delivery.webhookId, delivery.secretSealed)];
    if (delivery.previousSecretSealed !== null && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt.getTime() > now) {
      secrets.push(box.open(delivery.webhookId, delivery.previousSecretSealed));
    }
    const headers = webhookHeaders(delivery.id, Math.floor(now / 1_000), delivery.body, secrets);
    const outcome = await client.post(delivery.url, headers, delivery.body, () => clock.now());
    const status = await recordAttempt(database, delivery, clock.now(), outcome);
    this.#o.metrics?.attempts.inc({ result: attemptResult(status) });
    if (status === 'failed') this.#o.logger.info({ webhookId: delivery.webhookId, deliveryId: delivery.id, responseStatus: outcome.status }, 'webhook delivery failed for good');
    return { status, outcome };
  }
}
