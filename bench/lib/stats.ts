/** Latency samples (ms) → percentiles; throughput from a count over a wall-clock span. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** The median of unsorted values (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
}

/** Runs `call` from `concurrency` loops for `durationMs`, recording each call's latency. */
export async function runLoad(call: () => Promise<unknown>, concurrency: number, durationMs: number): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        await call();
        latenciesMs.push(performance.now() - t0);
      } catch {
        errors += 1;
      }
    }
  }));
  return { requests: latenciesMs.length, errors, seconds: (performance.now() - started) / 1000, latenciesMs };
}

export function summarize(results: readonly LoadResult[]) {
  const latencies = results.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  return {
    requests,
    errors: results.reduce((n, r) => n + r.errors, 0),
    rps: requests / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
