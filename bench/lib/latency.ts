import { Agent, request } from 'node:http';

/**
 * A closed-loop load generator with microsecond latencies: `connections` loops on keep-alive
 * sockets, each sending its next request when the previous answer is read, `amount` in all.
 * Not autocannon: its histogram counts whole milliseconds (too coarse for a sub-millisecond
 * budget) and with a fixed request count it reports throughput in whole seconds.
 */
export interface LatencyResult {
  /** Microseconds, sorted ascending. */
  samples: Float64Array;
  rps: number;
  non2xx: number;
}

export async function measureLatency(
  url: string,
  headers: Record<string, string>,
  amount: number,
  connections: number,
): Promise<LatencyResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const samples = new Float64Array(amount);
  let next = 0;
  let non2xx = 0;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const start = process.hrtime.bigint();
      const req = request(url, { agent, headers }, (res) => {
        if ((res.statusCode ?? 0) >= 300) non2xx += 1;
        res.resume();
        res.once('end', () => resolve(Number(process.hrtime.bigint() - start) / 1_000));
      });
      req.once('error', reject);
      req.end();
    });
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < amount) {
        const index = next++;
        samples[index] = await once();
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  samples.sort();
  return { samples, rps: amount / seconds, non2xx };
}
