import { isApiError, type ApiError, type Clock } from '../core/index.js';
import type { AccessRequest, Principal } from '../identity/index.js';
import type { RequestPipeline } from './request-pipeline.js';

/** How often an open connection's key is checked again, on the clock. */
export const KEY_RECHECK_MS = 1_000;
/** How often the watched keys' clocks are read (a test moves a ManualClock; the checks follow). */
const WATCH_TICK_MS = 1_000;

/**
 * The key a long-lived call was admitted with (a Warp or JSON-RPC WebSocket, an SSE response, a
 * streaming gRPC call), checked again while it lives: disabled, expired, scope, origin or network
 * changed. An open connection is not a pass (spec: `enabled` goes false "immediately", an expired
 * key gives 401, scope changes "within a few seconds"). The check is the pipeline's authenticate
 * stage through the key cache, so a change reaches open connections as fast as new requests
 * (SUIGW_KEY_CACHE_TTL_MS, and at once with LISTEN/NOTIFY).
 */
export class KeyRecheck {
  readonly #pipeline: RequestPipeline;
  readonly #apiKey: string | undefined;
  readonly #access: AccessRequest;

  constructor(pipeline: RequestPipeline, apiKey: string | undefined, access: AccessRequest) {
    this.#pipeline = pipeline;
    this.#apiKey = apiKey;
    this.#access = access;
  }

  /**
   * The key's principal now, or its refusal (thrown, or a rejected promise); undefined for a call
   * Envoy admitted (a trusted identity token, no key: authz decided).
   */
  check(): Principal | undefined | Promise<Principal | undefined> {
    if (this.#apiKey === undefined) return undefined;
    return this.#pipeline.authenticateKey(this.#apiKey, this.#access);
  }

  /**
   * The refusal the key meets now, or undefined while it may still call, or when the check could
   * not decide (a database error, the unknown-key budget's 429: tried again at the next check).
   */
  async refusal(): Promise<ApiError | undefined> {
    try {
      await this.check();
      return undefined;
    } catch (error) {
      return refusesKey(error) ? error : undefined;
    }
  }

  /**
   * Checks the key every KEY_RECHECK_MS on `clock` until the returned function is called; the
   * first refusal goes to `refused`, once, and ends the watch.
   */
  watch(clock: Clock, refused: (error: ApiError) => void): () => void {
    // A call Envoy admitted has no key to check: nothing to watch.
    if (this.#apiKey === undefined) return () => undefined;
    const watched: WatchedKey = { recheck: this, clock, last: clock.now(), checking: false, refused };
    WATCHED.add(watched);
    WATCH_TIMER.start();
    return () => unwatch(watched);
  }
}

/**
 * Whether a failed check refused the key itself (401, 403, 404: disabled, expired, unknown, its
 * organization gone, scope, origin or network), the only failures that end an open connection;
 * a failure to check it (a 5xx, a 429 of the per-IP budget of lookups) says nothing of the key.
 */
export function refusesKey(error: unknown): error is ApiError {
  return isApiError(error) && (error.status === 401 || error.status === 403 || error.status === 404);
}

interface WatchedKey {
  recheck: KeyRecheck;
  clock: Clock;
  last: number;
  /** A check (a key lookup, when not cached) still running: the next waits for it. */
  checking: boolean;
  refused: (error: ApiError) => void;
}

/**
 * Every open connection of the process is watched by one timer, not one each: a unary gRPC call
 * is watched too (the proxy cannot tell it from a stream), and a Set entry costs it less than a timer.
 */
const WATCHED = new Set<WatchedKey>();

const WATCH_TIMER = (() => {
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      if (timer) return;
      timer = setInterval(checkDue, WATCH_TICK_MS);
      timer.unref();
    },
    stopWhenIdle() {
      if (WATCHED.size > 0 || !timer) return;
      clearInterval(timer);
      timer = undefined;
    },
  };
})();

function unwatch(watched: WatchedKey): void {
  WATCHED.delete(watched);
  WATCH_TIMER.stopWhenIdle();
}

function checkDue(): void {
  for (const watched of WATCHED) {
    if (watched.checking || watched.clock.now() - watched.last < KEY_RECHECK_MS) continue;
    watched.last = watched.clock.now();
    watched.checking = true;
    void watched.recheck.refusal().then((error) => {
      watched.checking = false;
      if (error === undefined || !WATCHED.has(watched)) return;
      unwatch(watched);
      watched.refused(error);
    });
  }
}
