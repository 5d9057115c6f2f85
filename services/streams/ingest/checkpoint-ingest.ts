import type { GrpcTypes } from '@mysten/sui/grpc';
import { sql } from 'kysely';
import type { Clock, Logger, Metrics, Network } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import type { Upstream } from '../../upstream/index.js';
import { listNetworkStreams, streamsDb } from '../definitions/store.js';
import { definitionVersion } from '../definitions/versions.js';
import type { AppendedEvent, StreamLog } from '../log/stream-log.js';
import { CHECKPOINT_READ_MASK, checkpointTransactions, timestampMs } from './chain-activity.js';
import type { MatchConsumer, MatchTarget } from './match-consumer.js';
import { StreamMatcher } from './matcher.js';

export interface CheckpointIngestOptions {
  network: Network;
  upstream: Upstream;
  database: Database;
  log: StreamLog;
  clock: Clock;
  logger: Logger;
  /**
   * How often the definitions are reloaded regardless (a plan that ends or comes back pauses or
   * resumes webhooks without touching them). Changes to the definitions themselves apply from
   * the next checkpoint: their version is read before each one.
   */
  refreshMs?: number;
  /** Wait before resubscribing after the upstream stream broke. */
  reconnectMs?: number;
  /** Consumers matched in the same pass as the streams (webhooks). */
  consumers?: readonly MatchConsumer[];
  /** Where the ingest says how far it got (`suigw_warp_checkpoints_ingested_total`, `suigw_warp_ingest_lag_seconds`). */
  instruments?: Pick<Metrics, 'warpCheckpointsIngested' | 'warpIngestLag'>;
  /** Called after each checkpoint was matched and appended (benchmarks and tests follow progress). */
  onCheckpoint?: (sequence: bigint, matched: number) => void;
}

/**
 * One network's ingest: one upstream SubscribeCheckpoints, matched against every stream of the
 * network, appended to the stream log, the cursor persisted per checkpoint. Subscriptions start
 * at the tip and do not resume, so after a restart or a broken stream the gap between the
 * persisted cursor and the first live checkpoint is read from the ledger (GetCheckpoint) and
 * spliced in; checkpoints at or below the cursor are skipped, and the log skips a checkpoint a
 * stream already has, so nothing is appended twice.
 */
export class CheckpointIngest {
  readonly #options: CheckpointIngestOptions;
  #matcher = new StreamMatcher([]);
  /** The definitions version the matcher was built from. */
  #version: string | undefined;
  /** Which consumer owns each non-stream target of the matcher. */
  #consumerOf = new Map<string, MatchConsumer>();
  /** The streams the matcher matches. */
  #streamIds = new Set<string>();
  /** Streams deleted since the matcher last had them: their logs are deleted after the next appends. */
  #deletedStreams = new Set<string>();
  #cursor: bigint | undefined;
  /** The chain the cursor counts in (undefined: not known yet). */
  #chainId: string | undefined;
  /** The upstream's lowest checkpoint not pruned yet (GetServiceInfo), read at each subscription. */
  #lowestAvailable: bigint | undefined;
  #abort = new AbortController();
  #running: Promise<void> | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;

  constructor(options: CheckpointIngestOptions) {
    this.#options = options;
    // The network's series exists at 0 from the start: an ingest that never appends (a broken
    // upstream from the first minute) is then a flat rate that SuigwWarpIngestStalled sees, not
    // an absent series it cannot.
    options.instruments?.warpCheckpointsIngested.inc({ network: options.network }, 0);
  }

  get cursor(): bigint | undefined {
    return this.#cursor;
  }

  async start(): Promise<void> {
    const row = await streamsDb(this.#options.database).selectFrom('stream_ingest_cursors').select(['checkpoint', 'chain_id'])
      .where('network', '=', this.#options.network).executeTakeFirst();
    this.#cursor = row ? BigInt(row.checkpoint) : undefined;
    this.#chainId = row?.chain_id ?? undefined;
    await this.refreshStreams();
    this.#refreshTimer = setInterval(() => {
      this.refreshStreams().catch((error: unknown) => this.#options.logger.warn({ err: error }, 'stream definitions reload failed'));
    }, this.#options.refreshMs ?? 1_000);
    this.#refreshTimer.unref();
    this.#running = this.#loop();
  }

  async stop(): Promise<void> {
    clearInterval(this.#refreshTimer);
    this.#abort.abort();
    await this.#running;
  }

  async refreshStreams(): Promise<void> {
    const { database, network } = this.#options;
    // Read before the definitions: a change committed meanwhile moves the version again and is
    // picked up before the next checkpoint.
    const version = await definitionVersion(database, network);
    const streams = await listNetworkStreams(database, network);
    const targets: MatchTarget[] = [...streams];
    const consumerOf = new Map<string, MatchConsumer>();
    for (const consumer of this.#options.consumers ?? []) {
      for (const target of await consumer.targets(network)) {
        targets.push(target);
        consumerOf.set(target.id, consumer);
      }
    }
    // The periodic reload and a checkpoint's may overlap: an older read never replaces a newer one.
    if (this.#version !== undefined && BigInt(version) < BigInt(this.#version)) return;
    this.#matcher = new StreamMatcher(targets);
    this.#consumerOf = consumerOf;
    this.#version = version;
    const streamIds = new Set(streams.map((stream) => stream.id));
    for (const id of this.#streamIds) if (!streamIds.has(id)) this.#deletedStreams.add(id);
    this.#streamIds = streamIds;
  }

  async #loop(): Promise<void> {
    const { logger, network } = this.#options;
    while (!this.#abort.signal.aborted) {
      try {
        await this.#follow();
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        logger.warn({ err: error, network }, 'checkpoint subscription broke; resubscribing');
      }
      await new Promise((resolve) => setTimeout(resolve, this.#options.reconnectMs ?? 1_000).unref());
    }
  }

  async #follow(): Promise<void> {
    // Each subscription is ended by the attempt that opened it: one that breaks (a failed backfill,
    // a log that cannot append while Redis is down) and is retried must not stay open, receiving
    // every checkpoint from the upstream with nobody reading them.
    const subscription = new AbortController();
    const stop = () => subscription.abort();
    this.#abort.signal.addEventListener('abort', stop);
    try {
      const call = this.#options.upstream.grpc.subscriptionService.subscribeCheckpoints(
        { readMask: { paths: CHECKPOINT_READ_MASK } },
        { abort: subscription.signal },
      );
      // The subscription starts at the tip: checkpoints sealed since the persisted cursor are read
      // from the ledger now, not when the next live checkpoint arrives (a quiet chain would leave
      // the gap open). Live checkpoints received meanwhile wait in the call and are skipped below
      // if the backfill covered them. The same call says which chain the upstream serves.
      const { response } = await this.#options.upstream.grpc.ledgerService.getServiceInfo({}, { abort: this.#abort.signal, timeout: 10_000 });
      const tip = response.checkpointHeight;
      // A full node prunes old checkpoints: what it no longer has cannot be backfilled (GetCheckpoint
      // is NOT_FOUND below it), so a gap that reaches below it is read from there on.
      this.#lowestAvailable = response.lowestAvailableCheckpoint;
      if (this.#cursor !== undefined && tip !== undefined && this.#cursorLost(response.chainId, tip)) {
        // Every checkpoint up to the cursor would be skipped, and nothing of another chain can be
        // backfilled: start at the upstream's tip.
        this.#options.logger.warn({ was: this.#chainId, now: response.chainId, cursor: String(this.#cursor), tip: String(tip) },
          'the ingest cursor is not on the upstream\'s chain (another chain, or beyond its tip); ingest restarts at its tip');
        this.#chainId = response.chainId;
        await this.#persist(tip);
      } else {
        this.#chainId ??= response.chainId;
        if (this.#cursor !== undefined && tip !== undefined && tip > this.#cursor) await this.#backfill(this.#cursor + 1n, tip);
      }
      for await (const message of call.responses) {
        const checkpoint = message.checkpoint;
        if (!checkpoint || checkpoint.sequenceNumber === undefined) continue;
        const sequence = checkpoint.sequenceNumber;
        if (this.#cursor !== undefined && sequence <= this.#cursor) continue;
        if (this.#cursor !== undefined && sequence > this.#cursor + 1n) await this.#backfill(this.#cursor + 1n, sequence - 1n);
        await this.#ingest(checkpoint);
      }
    } finally {
      this.#abort.signal.removeEventListener('abort', stop);
      subscription.abort();
    }
  }

  async #backfill(from: bigint, to: bigint): Promise<void> {
    const ledger = this.#options.upstream.grpc.ledgerService;
    const lowest = this.#lowestAvailable;
    if (lowest !== undefined && from < lowest) {
      this.#options.logger.warn({ network: this.#options.network, cursor: String(from - 1n), lowestAvailable: String(lowest), lost: String((lowest <= to ? lowest : to + 1n) - from) },
        'the upstream has pruned checkpoints after the ingest cursor; ingest resumes at its lowest available checkpoint');
      from = lowest;
    }
    for (let sequence = from; sequence <= to && !this.#abort.signal.aborted; sequence += 1n) {
      const { response } = await ledger.getCheckpoint(
        { checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: sequence }, readMask: { paths: CHECKPOINT_READ_MASK } },
        { abort: this.#abort.signal, timeout: 10_000 },
      );
      if (response.checkpoint) await this.#ingest(response.checkpoint);
    }
  }

  async #ingest(checkpoint: GrpcTypes.Checkpoint): Promise<void> {
    const sequence = checkpoint.sequenceNumber ?? 0n;
    // A definition whose creation answered before this checkpoint was sealed is committed by now:
    // reading the version here makes it apply to this checkpoint (see announceDefinitionChange).
    if (await definitionVersion(this.#options.database, this.#options.network) !== this.#version) await this.refreshStreams();
    const byStream = new Map<string, AppendedEvent[]>();
    if (this.#matcher.size > 0) {
      for (const transaction of checkpointTransactions(checkpoint)) {
        for (const match of this.#matcher.match(transaction)) {
          const list = byStream.get(match.streamId) ?? [];
          list.push(match.event);
          byStream.set(match.streamId, list);
        }
      }
    }
    let matched = 0;
    const handOver = new Map<MatchConsumer, Map<string, AppendedEvent[]>>();
    for (const [id, events] of byStream) {
      const consumer = this.#consumerOf.get(id);
      if (!consumer) continue;
      byStream.delete(id);
      const matches = handOver.get(consumer) ?? new Map<string, AppendedEvent[]>();
      matches.set(id, events);
      handOver.set(consumer, matches);
      matched += events.length;
    }
    const chain = this.#chainId ?? '';
    await Promise.all([
      ...[...byStream].map(async ([streamId, events]) => {
        matched += (await this.#options.log.append(streamId, events, sequence, chain)).length;
      }),
      ...[...handOver].map(([consumer, matches]) => consumer.accept(this.#options.network, sequence, matches, chain)),
    ]);
    await this.#removeDeletedLogs();
    await this.#persist(sequence);
    this.#report(checkpoint);
    this.#options.onCheckpoint?.(sequence, matched);
  }

  /**
   * Deletes the logs of streams deleted since: nothing appends to them again, so their trims
   * would never run and their events and guards would stay in Redis. Here, after this ingest's
   * appends, none of which can recreate them from then on (the matcher no longer has them); an
   * ingest of another process that still had them deletes them after its own appends too.
   */
  async #removeDeletedLogs(): Promise<void> {
    if (this.#deletedStreams.size === 0) return;
    const ids = [...this.#deletedStreams];
    this.#deletedStreams.clear();
    try {
      await this.#options.log.remove(ids);
    } catch (error) {
      // Tried again after the next checkpoint; the ingest itself carries on.
      for (const id of ids) this.#deletedStreams.add(id);
      this.#options.logger.warn({ err: error, streams: ids.length }, 'deleting the logs of deleted streams failed; retrying after the next checkpoint');
    }
  }

  #report(checkpoint: GrpcTypes.Checkpoint): void {
    const { instruments, network, clock } = this.#options;
    if (!instruments) return;
    instruments.warpCheckpointsIngested.inc({ network });
    const sealedAt = timestampMs(checkpoint);
    if (sealedAt !== null) instruments.warpIngestLag.set({ network }, (clock.now() - sealedAt) / 1_000);
  }

  /**
   * Whether the cursor is not on the upstream's chain: it is beyond the upstream's tip (no chain
   * goes back: another chain under the same identifier, as an upstream restarted from genesis, or a
   * replica behind, whose checkpoints the log and the webhook deliveries take once only), or it
   * was written on a chain with another identifier (a wiped devnet or testnet).
   */
  #cursorLost(chainId: string | undefined, tip: bigint): boolean {
    if (this.#cursor !== undefined && this.#cursor > tip) return true;
    return this.#chainId !== undefined && chainId !== undefined && chainId !== this.#chainId;
  }

  async #persist(sequence: bigint): Promise<void> {
    this.#cursor = sequence;
    const now = new Date(this.#options.clock.now());
    const chainId = this.#chainId ?? null;
    await streamsDb(this.#options.database).insertInto('stream_ingest_cursors')
      .values({ network: this.#options.network, checkpoint: sequence.toString(), chain_id: chainId, updated_at: now })
      .onConflict((oc) => oc.column('network').doUpdateSet({ checkpoint: sql`excluded.checkpoint`, chain_id: chainId, updated_at: now }))
      .execute();
  }
}
