import type { Logger } from '../core/index.js';
import type { BillingPass } from './billing-pass.js';
import type { ChargingLock } from './charging-lock.js';

/**
 * `suigw dev`'s stand-in for the OnchainPlan CronJob: a billing pass every `intervalMs` in the
 * process (the pass is idempotent, so running it more often than work is due costs reads only).
 */
export function startBillingScheduler(options: { pass: BillingPass; lock: ChargingLock; intervalMs: number; logger: Logger }): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = options.lock.tryRun(() => options.pass.run()).then(
      (report) => {
        if (report && Object.values(report).some((count) => count > 0)) options.logger.info({ report }, 'billing pass');
      },
      (error: unknown) => options.logger.error({ err: error }, 'billing pass failed'),
    );
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
