import { ApiError, retryAfter, type Clock } from '../core/index.js';
import type { Upstream } from '../upstream/index.js';

/** The spec: "An epoch is about 24 hours"; used when the node does not say. */
const DEFAULT_EPOCH_MS = 86_400_000;

export interface CurrentEpoch {
  epoch: number;
  /** When the epoch started (Unix ms), and how long epochs last: for the `expiresAt` estimate. */
  startMs: number;
  durationMs: number;
}

/**
 * The current epoch of the key's network, read from its upstream. Any failure to read it is
 * 503 CHAIN_UNAVAILABLE with Retry-After (spec: nonce, prove): without it no epoch window can be
 * checked, and the caller cannot fix that.
 */
export async function readCurrentEpoch(upstream: Upstream, now: number): Promise<CurrentEpoch> {
  let epoch;
  try {
    const response = await upstream.call('GetEpoch', async (options) => (await upstream.grpc.ledgerService.getEpoch(
      { readMask: { paths: ['epoch', 'start', 'system_state.parameters.epoch_duration_ms'] } }, options)).response, { idempotent: true });
    epoch = response.epoch;
  } catch (error) {
    throw new ApiError('CHAIN_UNAVAILABLE', { message: 'The current epoch could not be read from the network.', ...retryAfter(2), cause: error });
  }
  if (epoch?.epoch === undefined) throw new ApiError('CHAIN_UNAVAILABLE', { message: 'The network did not report its epoch.', ...retryAfter(2) });
  const start = epoch.start;
  const startMs = start ? Number(start.seconds) * 1000 + Math.floor(start.nanos / 1e6) : now;
  const durationMs = Number(epoch.systemState?.parameters?.epochDurationMs ?? 0n) || DEFAULT_EPOCH_MS;
  return { epoch: Number(epoch.epoch), startMs, durationMs };
}

/** How long a read current epoch is reused (epochs last about a day; a few seconds late is harmless). */
const CURRENT_EPOCH_TTL_MS = 2_000;

/**
 * The current epoch of each network, read from its shared upstream at most once per 2 s: every
 * nonce and proof needs it, and concurrent requests share one read instead of one GetEpoch each.
 * The read is not bound to any one request (a caller who leaves cannot fail the others); failures
 * are not cached.
 */
export class CurrentEpochs {
  readonly #clock: Clock;
  readonly #cache = new Map<Upstream, { at: number; value: Promise<CurrentEpoch> }>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  read(upstream: Upstream): Promise<CurrentEpoch> {
    const now = this.#clock.now();
    const cached = this.#cache.get(upstream);
    if (cached && now - cached.at < CURRENT_EPOCH_TTL_MS) return cached.value;
    const value = readCurrentEpoch(upstream, now);
    this.#cache.set(upstream, { at: now, value });
    value.catch(() => {
      if (this.#cache.get(upstream)?.value === value) this.#cache.delete(upstream);
    });
    return value;
  }
}
