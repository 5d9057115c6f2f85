import type { Network } from '../../core/index.js';
import type { StreamFilter } from '../definitions/filters.js';
import type { AppendedEvent } from '../log/stream-log.js';

/** Anything matched like a stream: an id and a stream type with its filters. */
export type MatchTarget = StreamFilter & { id: string };

/**
 * Another consumer of the ingest's matching besides the stream log (webhooks): its targets are
 * matched by the same matcher in the same pass, and its matches are handed over per checkpoint
 * before the ingest cursor moves past it.
 */
export interface MatchConsumer {
  /** The consumer's targets on a network now; ids must not collide with stream ids. */
  targets(network: Network): Promise<MatchTarget[]>;
  /**
   * The consumer's matches of one checkpoint, by target id, in match order. May be called again
   * for the same checkpoint (a restarted ingest, several processes): it must be idempotent per
   * `chain` and checkpoint. `chain` is the upstream's chain identifier ('' unknown), as the stream
   * log's guard names it: a wiped devnet or testnet counts checkpoints from 0 again on another one.
   */
  accept(network: Network, checkpoint: bigint, matches: ReadonlyMap<string, readonly AppendedEvent[]>, chain?: string): Promise<void>;
}
