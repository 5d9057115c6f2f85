import type { Clock, Network } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import type { AppendedEvent, MatchConsumer, MatchTarget } from '../../streams/index.js';
import { pausedWebhookIds } from '../definitions/pause.js';
import { listNetworkWebhookTargets } from '../definitions/store.js';
import { enqueueDeliveries, type QueuedEvent } from './deliveries.js';

/**
 * The payload of a delivery: `{type, timestamp, data}` (Standard Webhooks' shape) with the very
 * event a stream of the same type and filters receives: `type` is the stream message kind,
 * `data` its data, `timestamp` the checkpoint's time (the queueing time if it has none).
 */
export function deliveryBody(event: AppendedEvent, now: number): string {
  const data = event.data as { timestampMs?: unknown };
  const at = typeof data?.timestampMs === 'number' ? data.timestampMs : now;
  return JSON.stringify({ type: event.kind, timestamp: new Date(at).toISOString(), data: event.data });
}

/**
 * Webhooks as a consumer of the streams' ingest: enabled webhooks that the plan-end pause rule
 * does not pause are matched with the streams, and their matches are queued in PostgreSQL.
 * A paused or disabled webhook queues nothing: events it misses are not delivered later.
 */
export class WebhookMatchConsumer implements MatchConsumer {
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #onQueued: (() => void) | undefined;

  constructor(options: { database: Database; clock: Clock; onQueued?: () => void }) {
    this.#database = options.database;
    this.#clock = options.clock;
    this.#onQueued = options.onQueued;
  }

  async targets(network: Network): Promise<MatchTarget[]> {
    const [targets, paused] = await Promise.all([listNetworkWebhookTargets(this.#database, network), pausedWebhookIds(this.#database)]);
    return targets.filter((target) => !paused.has(target.id));
  }

  async accept(_network: Network, checkpoint: bigint, matches: ReadonlyMap<string, readonly AppendedEvent[]>, chain = ''): Promise<void> {
    const now = this.#clock.now();
    const events: QueuedEvent[] = [];
    for (const [webhookId, matched] of matches) {
      matched.forEach((event, position) => events.push({ webhookId, chain, checkpoint, position, eventType: event.kind, body: deliveryBody(event, now) }));
    }
    if ((await enqueueDeliveries(this.#database, now, events)) > 0) this.#onQueued?.();
  }
}
