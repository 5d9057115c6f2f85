import type { GrpcTypes } from '@mysten/sui/grpc';
import type { Upstream } from '../../upstream/index.js';
import { FULL_READ_MASK } from '../methods/transactions/render-response.js';

export type TransactionListener = (tx: GrpcTypes.ExecutedTransaction) => void;

export interface CheckpointFeedOptions {
  /** Waits before re-subscribing after the stream failed (doubles up to `maxRetryMs`). */
  retryMs?: number;
  maxRetryMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * One network's checkpoint stream (SubscriptionService.SubscribeCheckpoints on its upstream),
 * shared by every socket subscribed on that network: opened with the first listener, closed
 * with the last, re-opened with backoff when the upstream drops it. Each sealed checkpoint's
 * transactions reach every listener in order, stamped with the checkpoint's time.
 */
export class CheckpointFeed {
  readonly #upstream: Upstream;
  readonly #listeners = new Set<TransactionListener>();
  readonly #retryMs: number;
  readonly #maxRetryMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  #abort: AbortController | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Number of upstream subscriptions opened so far (tests check the sharing). */
  opened = 0;

  constructor(upstream: Upstream, options: CheckpointFeedOptions = {}) {
    this.#upstream = upstream;
    this.#retryMs = options.retryMs ?? 250;
    this.#maxRetryMs = options.maxRetryMs ?? 10_000;
    this.#onError = options.onError;
  }

  get listeners(): number {
    return this.#listeners.size;
  }

  /** Adds a listener; the returned function removes it. */
  listen(listener: TransactionListener): () => void {
    this.#listeners.add(listener);
    if (!this.#abort) this.#open(this.#retryMs);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.close();
    };
  }

  close(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
  }

  #open(retryMs: number): void {
    const abort = new AbortController();
    this.#abort = abort;
    this.opened += 1;
    const call = this.#upstream.grpc.subscriptionService.subscribeCheckpoints({
      readMask: { paths: ['sequence_number', 'summary.timestamp', ...FULL_READ_MASK.map((p) => `transactions.${p}`)] },
    }, { abort: abort.signal });
    // The stream's status settles when it ends; its failure is handled below, not left unhandled.
    call.status.then(() => undefined, () => undefined);
    call.headers.then(() => undefined, () => undefined);
    call.trailers.then(() => undefined, () => undefined);
    void (async () => {
      let delivered = false;
      try {
        for await (const message of call.responses) {
          delivered = true;
          const checkpoint = message.checkpoint;
          if (!checkpoint) continue;
          for (const tx of checkpoint.transactions) {
            const stamped = { ...tx, checkpoint: tx.checkpoint ?? checkpoint.sequenceNumber, timestamp: tx.timestamp ?? checkpoint.summary?.timestamp };
            for (const listener of [...this.#listeners]) listener(stamped);
          }
        }
      } catch (error) {
        if (abort.signal.aborted) return;
        this.#onError?.(error);
      }
      if (abort.signal.aborted || this.#abort !== abort) return;
      // The upstream ended or dropped the stream while someone still listens: subscribe again.
      const next = delivered ? this.#retryMs : Math.min(retryMs * 2, this.#maxRetryMs);
      this.#retryTimer = setTimeout(() => {
        if (this.#abort === abort && this.#listeners.size > 0) this.#open(next);
      }, retryMs);
      this.#retryTimer.unref();
    })();
  }
}

/** One feed per network, created on first use. */
export class CheckpointFeeds {
  readonly #feeds = new Map<string, CheckpointFeed>();
  readonly #options: CheckpointFeedOptions;

  constructor(options: CheckpointFeedOptions = {}) {
    this.#options = options;
  }

  of(network: string, upstream: Upstream): CheckpointFeed {
    let feed = this.#feeds.get(network);
    if (!feed) {
      feed = new CheckpointFeed(upstream, this.#options);
      this.#feeds.set(network, feed);
    }
    return feed;
  }

  close(): void {
    for (const feed of this.#feeds.values()) feed.close();
  }
}
