export interface AdaptiveLimitOptions {
  /** The fewest calls kept in flight, and the count the base latency is measured at. */
  min: number;
  /** The most calls in flight (the policy's `maxConcurrentCalls`). */
  max: number;
  /** How many times its base latency a call may take before the upstream counts as queueing. */
  tolerance: number;
  /** Added to every allowance: an idle node's and an idle event loop's jitter is not queueing. */
  slackMs: number;
  /** Calls per adjustment (at least this many, and at least the current limit). */
  windowSamples: number;
  /** How often the limit is pinned to `min` for `baseSamples` calls, to see the node unloaded. */
  baseIntervalMs: number;
  baseSamples: number;
  now: () => number;
}

export const defaultAdaptiveLimit = {
  min: 4,
  tolerance: 2,
  slackMs: 2,
  windowSamples: 16,
  baseIntervalMs: 30_000,
  baseSamples: 16,
} as const;

const MIN_GRADIENT = 0.5;
const MAX_GRADIENT = 2;

/**
 * How many calls one process keeps in flight to an upstream, adapted to the upstream's latency
 * (the gradient controller of Envoy's adaptive concurrency filter, and of Netflix's
 * concurrency-limits): while calls take about their unloaded time the limit grows toward `max`;
 * once they take longer than `tolerance` times it, the node is queueing our calls, and the limit
 * shrinks in proportion. The excess then waits in this process's bulkhead, whose queue is fair
 * per organization, instead of in the node's, which is first come first served across every
 * process and tenant that calls it: one organization's heavy but allowed load on one role can no
 * longer delay another organization's calls on another role into timeouts.
 *
 * Each operation has its own base latency (a `GetObject` and a GraphQL query differ tenfold): the
 * least it took over the last two base intervals. At the start and every `baseIntervalMs` after,
 * the limit is pinned to `min` for `baseSamples` calls, so that a base is seen even under
 * sustained load.
 */
export class AdaptiveLimit {
  #limit: number;
  readonly #options: AdaptiveLimitOptions;
  /** Allowance ratios ((base × tolerance + slack) / took) of the calls since the last adjustment. */
  #window: number[] = [];
  /** Per operation: the least latency in the current and in the previous base interval. */
  #bases = new Map<string, { current: number; previous: number }>();
  #pinned: { restore: number; left: number } | undefined;
  #nextBaseAt: number;

  constructor(options: AdaptiveLimitOptions) {
    this.#options = options;
    this.#limit = options.max;
    // The first calls set the bases: with the limit at its maximum they would all be queued
    // behind each other, at a node that may already be at its capacity.
    this.#nextBaseAt = options.now();
    this.#pinForBase();
  }

  /** Calls that may be in flight now. */
  get current(): number {
    return this.#pinned ? this.#options.min : this.#limit;
  }

  /** A call the node answered (whatever its status) after `tookMs`. */
  answered(operation: string, tookMs: number): void {
    const base = this.#base(operation, tookMs);
    if (this.#pinned) {
      this.#pinned.left -= 1;
      if (this.#pinned.left <= 0) {
        this.#limit = this.#pinned.restore;
        this.#pinned = undefined;
      }
      return;
    }
    const { tolerance, slackMs, windowSamples } = this.#options;
    this.#window.push((base * tolerance + slackMs) / Math.max(tookMs, 0.001));
    if (this.#window.length < Math.max(windowSamples, this.#limit)) return;
    const gradient = Math.min(MAX_GRADIENT, Math.max(MIN_GRADIENT, median(this.#window)));
    this.#window = [];
    const scaled = this.#limit * gradient;
    this.#setLimit(scaled + Math.sqrt(scaled));
    if (this.#options.now() >= this.#nextBaseAt) this.#pinForBase();
  }

  /** A call the node left unanswered past its attempt's time: the node is overloaded, halve at once. */
  timedOut(): void {
    this.#window = [];
    if (this.#pinned) return;
    this.#setLimit(this.#limit / 2);
  }

  #setLimit(value: number): void {
    this.#limit = Math.min(this.#options.max, Math.max(this.#options.min, Math.round(value)));
  }

  #pinForBase(): void {
    this.#pinned = { restore: this.#limit, left: this.#options.baseSamples };
    this.#nextBaseAt = this.#options.now() + this.#options.baseIntervalMs;
    for (const [operation, base] of this.#bases) this.#bases.set(operation, { current: Infinity, previous: base.current });
  }

  #base(operation: string, tookMs: number): number {
    let base = this.#bases.get(operation);
    if (!base) {
      base = { current: tookMs, previous: Infinity };
      this.#bases.set(operation, base);
    } else if (tookMs < base.current) {
      base.current = tookMs;
    }
    return Math.min(base.current, base.previous);
  }
}

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}
