import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../core/index.js';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { SHED_RETRY_AFTER_SECONDS, STARTUP_GRACE_MS } from './load-shedding.js';

/** Holds the event loop, as a request that computes too much would. */
function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

describe('load shedding: 503 SERVICE_OVERLOADED before the event loop drowns', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { SUIGW_SHED_MAX_EVENT_LOOP_DELAY_MS: '20' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => t.close());

  it('a fresh app is not shed for the loop its own start-up held (the first samples after ready)', async () => {
    // Right after ready, as a fresh process's first requests: a start-up length block is not overload.
    blockEventLoop(1_500);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const response = await fetch(`${base}/mainnet/v1/auth/me`, { headers: { 'x-api-key': t.adminKey } });
    expect(response.status).toBe(200);
    // Past the grace period the thresholds apply (the next tests).
    await new Promise((resolve) => setTimeout(resolve, STARTUP_GRACE_MS));
  });

  it('a lagging event loop sheds requests with 503, Retry-After and the standard body; /health still answers', async () => {
    // Long enough that the sampled mean delay passes 20 ms however many quick ticks share its window.
    blockEventLoop(2_500);
    // Let the sampler (due during the block) record the delay.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const [shed, health] = await Promise.all([
      fetch(`${base}/mainnet/v1/auth/me`, { headers: { 'x-api-key': t.adminKey } }),
      fetch(`${base}/health`),
    ]);
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe(String(SHED_RETRY_AFTER_SECONDS));
    expect(await shed.json()).toEqual({
      error: 'Service overloaded',
      message: `The gateway is overloaded (eventLoopDelay); retry after ${SHED_RETRY_AFTER_SECONDS} s.`,
      code: 'SERVICE_OVERLOADED',
      requestId: shed.headers.get('x-request-id'),
    });
    expect(health.status).toBe(200);
  });

  it('once the loop is calm again, requests are served', async () => {
    // Two samples later the block is out of the window.
    await expect
      .poll(async () => (await fetch(`${base}/mainnet/v1/auth/me`, { headers: { 'x-api-key': t.adminKey } })).status, { timeout: 10_000, interval: 250 })
      .toBe(200);
  });
});

describe('shipped shedding thresholds', () => {
  it('event-loop delay 1000 ms, heap 90 % of the V8 limit', () => {
    expect(loadConfig({}).shedding).toEqual({ maxEventLoopDelayMs: 1_000, maxHeapPercent: 90 });
  });
});
