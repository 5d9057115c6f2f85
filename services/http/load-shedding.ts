import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyRequest } from 'fastify';
import { ApiError, type Config } from '../core/index.js';
import type { App } from '../route-contract/index.js';

/** What a shed client is told to wait (seconds): one sample of the event loop and then some. */
export const SHED_RETRY_AFTER_SECONDS = 5;
/** How often the event-loop delay and heap are sampled (ms); a threshold acts on the last sample. */
const SAMPLE_INTERVAL_MS = 1_000;
/**
 * Nothing is shed in the first two samples after the app is ready: building it (module loading,
 * schema compilation, migrations) holds the loop once, which the first sample would otherwise
 * read as overload and answer the first requests of a fresh process with 503.
 */
export const STARTUP_GRACE_MS = 2 * SAMPLE_INTERVAL_MS;

/**
 * Sheds load with 503 SERVICE_OVERLOADED (and `Retry-After`) while the event loop lags or the
 * heap is nearly full, before queued requests make every answer late. Requests that `exempt`
 * names (health checks) are always answered, so a load balancer sees an overloaded process as
 * alive; that it sends less traffic is the 503s' job.
 */
export async function registerLoadShedding(
  app: App,
  shedding: Config['shedding'],
  exempt: (request: FastifyRequest) => boolean,
): Promise<void> {
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    readyAt = Date.now();
  });
  const maxHeapUsedBytes =
    shedding.maxHeapPercent === 0 ? 0 : Math.floor((getHeapStatistics().heap_size_limit * shedding.maxHeapPercent) / 100);
  await app.register(underPressure, {
    maxEventLoopDelay: shedding.maxEventLoopDelayMs,
    maxHeapUsedBytes,
    sampleInterval: SAMPLE_INTERVAL_MS,
    retryAfter: SHED_RETRY_AFTER_SECONDS,
    // A rejected promise goes to the error handler, so the answer has the standard error body.
    pressureHandler: async (request, _reply, type) => {
      if (exempt(request) || Date.now() - readyAt < STARTUP_GRACE_MS) return;
      throw new ApiError('SERVICE_OVERLOADED', {
        message: `The gateway is overloaded (${type}); retry after ${SHED_RETRY_AFTER_SECONDS} s.`,
        headers: { 'retry-after': String(SHED_RETRY_AFTER_SECONDS) },
      });
    },
  });
}
