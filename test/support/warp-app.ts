import type { AddressInfo } from 'node:net';
import { ManualClock, type Metrics } from '../../services/core/index.js';
import { createTestApp, type TestApp } from './test-app.js';
import { WARP_ENGINES, type WarpEngine } from './warp-engines.js';

export interface WarpApp {
  t: TestApp;
  engine: WarpEngine;
  clock: ManualClock;
  /** The listening gateway's port (Warp routes under /mainnet/v1/warp/). */
  port: number;
  close(): Promise<void>;
}

/** A gateway serving Warp on a port, on one manual clock shared with its stream log and lease. */
export async function startWarpApp(options: { engine?: 'memory' | 'redis'; env?: Record<string, string>; metrics?: Metrics } = {}): Promise<WarpApp> {
  const clock = new ManualClock();
  const engine = await WARP_ENGINES.find(([name]) => name === (options.engine ?? 'memory'))![1](clock);
  const t = await createTestApp({
    tier: 'team', ...(options.env ? { env: options.env } : {}), extra: { clock, warp: engine, ...(options.metrics ? { metrics: options.metrics } : {}) },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    t, engine, clock, port: (t.app.server.address() as AddressInfo).port,
    async close() {
      await t.close();
      await engine.close();
    },
  };
}
