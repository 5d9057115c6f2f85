import { describe, expect, it } from 'vitest';
import { GC_PAUSE_BUCKETS_SECONDS, Metrics } from './metrics.js';

/** Garbage enough for several scavenges whatever the young generation's size. */
function allocateGarbage(): number {
  let kept = 0;
  for (let round = 0; round < 200; round++) kept += new Array(100_000).fill(round).length;
  return kept;
}

describe('Metrics', () => {
  it('counts GC pauses into buckets at Envoy\'s authz and ratelimit timeouts', async () => {
    const metrics = new Metrics();
    allocateGarbage();
    // prom-client records each collection from a PerformanceObserver, after the collection.
    await expect.poll(async () => (await metrics.exposition()).body, { timeout: 10_000 }).toMatch(/^nodejs_gc_duration_seconds_bucket\{le="0\.02",kind="minor"\} \d+$/m);
    const body = (await metrics.exposition()).body;
    const bounds = [...body.matchAll(/^nodejs_gc_duration_seconds_bucket\{le="([^"]+)",kind="minor"\}/gm)].map((match) => match[1]);
    expect(bounds).toEqual([...GC_PAUSE_BUCKETS_SECONDS.map(String), '+Inf']);
  });
});
