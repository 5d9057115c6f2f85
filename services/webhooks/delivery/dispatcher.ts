import type { Clock, Logger } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import { pausedWebhookIds } from '../definitions/pause.js';
import type { SecretBox } from '../definitions/signing-secret.js';
import { AttemptRecords } from './attempt-records.js';
import { claimDueDeliveries, releaseClaims, type AttemptOutcome, type ClaimedDelivery, type DeliveryStatus } from './deliveries.js';
import type { DeliveryCharges } from './delivery-charges.js';
import { DELIVERY_FAIRNESS, DeliverySlots, type DeliveryFairness, type EndpointVerdict } from './delivery-slots.js';
import type { EndpointClient } from './endpoint-client.js';
import { webhookHeaders } from './signature.js';
import type { WebhookMetrics } from './webhook-metrics.js';

/** Free slots that make a claim worth its query while attempts are in flight. */
const CLAIM_AT_FREE_SLOTS = 4;

/**
 * How long an organization whose credits are spent is left out of claims before its deliveries
 * are tried again (on the clock): they wait `pending`, no attempt spent, and go out once its
 * credits return (a new period, a top-up, a larger plan).
 */
export const CREDITS_RECHECK_MS = 10_000;

/** How long a claimed delivery is held before another process may take it (longer than an attempt), unless told. */
export const CLAIM_HOLD_MS = 120_000;

export interface WebhookDispatcherOptions {
  database: Database;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  client: EndpointClient;
  /** What attempts pay (docs/costs.md): 1 credit per delivery the receiver acknowledged. */
  charges: DeliveryCharges;
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
  /** Stopping: the running pass finishes the attempts in flight and starts no more. */
  #stopping = false;
  #again = false;
  /** Wakes a pass waiting for a free slot or new work; a signal with no waiter is kept for the next wait. */
  #waiter: (() => void) | undefined;
  #signalled = false;
  /** Organizations whose credits were spent, left out of claims until the time (clock ms) given. */
  readonly #outOfCredits = new Map<string, number>();
  /** Organizations logged as held for credits, logged again only once their deliveries went out in between. */
  readonly #heldLogged = new Set<string>();
  readonly #records: AttemptRecords;

  constructor(options: WebhookDispatcherOptions) {
    this.#o = options;
    this.slots = new DeliverySlots(options.fairness ?? DELIVERY_FAIRNESS, options.clock);
    this.#records = new AttemptRecords(options);
  }

  start(): void {
    this.#stopping = false;
    this.#timer = setInterval(() => this.wake(), this.#o.pollMs ?? 1_000);
    this.#timer.unref();
  }

  /**
   * Stops polling; the running pass finishes the attempts in flight (their deadline at most) and
   * claims nothing more, so a stopping process leaves the rest of the backlog pending and
   * unclaimed for the others instead of delivering all of it first.
   */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopping = true;
    this.#signal();
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
    const claimMs = this.#o.claimMs ?? CLAIM_HOLD_MS;
    const running = new Set<Promise<void>>();
    let attempted = 0;
    await this.#records.writeUnrecorded();
    for (;;) {
      let started = 0;
      // A claim leaves out the endpoints and organizations at their limit when it is made; their
      // attempts may all finish while it waits on PostgreSQL, and then its finding nothing says
      // nothing about them. Only a claim made with nothing in flight can end the pass.
      let claimedIdle = false;
      // Each claim is a query (a few rows per live webhook): with attempts in flight, wait until a
      // few slots are free rather than claim for every slot that frees. (With none in flight every
      // slot is free.)
      if (!this.#stopping && this.slots.free() >= Math.min(CLAIM_AT_FREE_SLOTS, this.slots.limits.total)) {
        // Read at each claim: a pass can last as long as a slow receiver's deadline.
        const paused = await pausedWebhookIds(database);
        const now = clock.now();
        claimedIdle = running.size === 0;
        const { perEndpoint, perOrganization } = this.slots.limits;
        const batch = await claimDueDeliveries(database, {
          now, claimUntil: now + claimMs, limit: this.slots.free(), paused, perEndpoint, perOrganization,
          skipWebhooks: this.slots.blockedEndpoints(), skipOrganizations: [...this.slots.blockedOrganizations(), ...this.#creditsSpent(now)],
        });
        const untried: string[] = [];
        for (const delivery of batch) {
          if (!this.slots.take(delivery.webhookId, delivery.organizationId)) {
            untried.push(delivery.id);
            continue;
          }
          started += 1;
          const attempt: Promise<void> = this.#attempt(delivery, now + claimMs)
            .then((result) => {
              if (result !== 'held' && result.status !== undefined) attempted += 1;
              this.slots.release(delivery.webhookId, delivery.organizationId, verdictOf(result));
            })
            .catch((error: unknown) => {
              // Not sent (the credit could not be held, the secret not opened): its circuit stays as it was.
              this.slots.release(delivery.webhookId, delivery.organizationId, 'untried');
              this.#o.logger.warn({ err: error, webhookId: delivery.webhookId }, 'webhook delivery attempt failed');
            })
            .finally(() => {
              running.delete(attempt);
              this.#signal();
            });
          running.add(attempt);
        }
        await releaseClaims(database, untried);
      }
      if (started === 0) {
        if (running.size > 0) await this.#nextSignal();
        else if (claimedIdle || this.#stopping) return attempted;
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

  /** The organizations left out of claims now because their credits were spent (forgotten once their time is up). */
  #creditsSpent(now: number): string[] {
    for (const [organizationId, until] of this.#outOfCredits) if (until <= now) this.#outOfCredits.delete(organizationId);
    return [...this.#outOfCredits.keys()];
  }

  /**
   * One attempt of one claimed delivery, recorded: the delivery's new status (undefined while
   * the record could not be written: AttemptRecords writes it at the next pass) and what the
   * receiver did; `held` when the organization's credits are spent: the delivery is given back
   * untried (still pending, no attempt counted) and its organization left out of claims for
   * CREDITS_RECHECK_MS, as a Warp stream keeps its undelivered events when credits run out.
   */
  async #attempt(delivery: ClaimedDelivery, claimUntil: number): Promise<AttemptResult | 'held'> {
    const { clock, database, charges } = this.#o;
    if (!(await charges.hold(delivery))) {
      this.#outOfCredits.set(delivery.organizationId, clock.now() + CREDITS_RECHECK_MS);
      if (!this.#heldLogged.has(delivery.organizationId)) {
        this.#heldLogged.add(delivery.organizationId);
        this.#o.logger.info({ organizationId: delivery.organizationId }, 'webhook deliveries held: the organization\'s credits are spent');
      }
      await releaseClaims(database, [delivery.id]);
      return 'held';
    }
    this.#heldLogged.delete(delivery.organizationId);
    let outcome: AttemptOutcome;
    try {
      outcome = await this.#post(delivery);
    } catch (error) {
      charges.failed(delivery);
      throw error;
    }
    return { outcome, status: await this.#records.write({ delivery, outcome, at: clock.now(), claimUntil }) };
  }

  /** Signs (with the previous secret too during a rotation) and POSTs one delivery. */
  #post(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    const { clock, box, client } = this.#o;
    const now = clock.now();
    const secrets = [box.open(delivery.webhookId, delivery.secretSealed)];
    if (delivery.previousSecretSealed !== null && delivery.previousSecretExpiresAt !== null && delivery.previousSecretExpiresAt.getTime() > now) {
      secrets.push(box.open(delivery.webhookId, delivery.previousSecretSealed));
    }
    const headers = webhookHeaders(delivery.id, Math.floor(now / 1_000), delivery.body, secrets);
    return client.post(delivery.url, headers, delivery.body, () => clock.now());
  }
}

/** What the receiver answered, and the delivery's status once that is written (undefined: not written yet). */
interface AttemptResult {
  outcome: AttemptOutcome;
  status: DeliveryStatus | undefined;
}

/** What an attempt says of its endpoint's health: a delivery held for credits was never sent. */
function verdictOf(result: AttemptResult | 'held'): EndpointVerdict {
  if (result === 'held') return 'untried';
  return result.outcome.timedOut === true ? 'timed-out' : 'answered';
}
