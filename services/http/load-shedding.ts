import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import { ApiError, type Config, type Logger } from '../core/index.js';
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

/** Answers whether a request must be shed now: the error to answer with, or undefined. */
export type PressureCheck = () => ApiError | undefined;

/**
 * Sheds load with 503 SERVICE_OVERLOADED (and `Retry-After`) while the event loop lags or the
 * heap is nearly full, before queued requests make every answer late. The caller exempts health
 * checks, so a load balancer sees an overloaded process as alive; that it sends less traffic is
 * the 503s' job.
 *
 * `@fastify/under-pressure` samples the event-loop delay and the heap; it is registered without
 * thresholds, so it adds no hook of its own and the check runs inside the gateway's one root
 * `onRequest` hook (services/http/root-hooks.ts), where it reads the last sample.
 */
export async function startLoadShedding(app: App, shedding: Config['shedding'], logger: Logger): Promise<PressureCheck> {
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    readyAt = Date.now();
  });
  const limits: PressureLimits = {
    maxDelayMs: shedding.maxEventLoopDelayMs,
    maxHeapUsedBytes:
      shedding.maxHeapPercent === 0 ? 0 : Math.floor((getHeapStatistics().heap_size_limit * shedding.maxHeapPercent) / 100),
  };
  await app.register(underPressure, { sampleInterval: SAMPLE_INTERVAL_MS });
  if (limits.maxDelayMs === 0 && limits.maxHeapUsedBytes === 0) return () => undefined;
  const check = pressureCheck(limits, () => app.memoryUsage(), logger);
  return () => (Date.now() - readyAt < STARTUP_GRACE_MS ? undefined : check());
}

/** The thresholds (0: that one is off); the heap's in bytes. */
export interface PressureLimits {
  maxDelayMs: number;
  maxHeapUsedBytes: number;
}

/** What the sampler last read: the mean event-loop delay (ms) and the heap used (bytes). */
export interface PressureSample {
  eventLoopDelay: number;
  heapUsed: number;
}

interface Overload {
  reason: 'eventLoopDelay' | 'heapUsedBytes';
  value: number;
  threshold: number;
}

function overloadOf(sample: PressureSample, { maxDelayMs, maxHeapUsedBytes }: PressureLimits): Overload | undefined {
  if (maxDelayMs > 0 && sample.eventLoopDelay > maxDelayMs) return { reason: 'eventLoopDelay', value: sample.eventLoopDelay, threshold: maxDelayMs };
  if (maxHeapUsedBytes > 0 && sample.heapUsed > maxHeapUsedBytes) return { reason: 'heapUsedBytes', value: sample.heapUsed, threshold: maxHeapUsedBytes };
  return undefined;
}

/**
 * The shedding decision on the last sample. An episode is logged at its start (the first request
 * refused after none were: warn, with what passed which threshold) and at its end (the first
 * request admitted after: info, with how many were shed), never per shed request: under
 * overload a line per request would add to the load.
 */
export function pressureCheck(limits: PressureLimits, read: () => PressureSample, logger: Logger): PressureCheck {
  let shedInEpisode = 0;
  return () => {
    const overload = overloadOf(read(), limits);
    if (overload === undefined) {
      if (shedInEpisode > 0) logger.info({ shed: shedInEpisode }, 'load shedding stopped');
      shedInEpisode = 0;
      return undefined;
    }
    if (shedInEpisode === 0) logger.warn(overload, 'load shedding started');
    shedInEpisode += 1;
    return new ApiError('SERVICE_OVERLOADED', {
      message: `The gateway is overloaded (${overload.reason}); retry after ${SHED_RETRY_AFTER_SECONDS} s.`,
      headers: { 'retry-after': String(SHED_RETRY_AFTER_SECONDS) },
    });
  };
}
