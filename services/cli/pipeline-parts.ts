import { Metrics, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import { Authenticator } from '../identity/index.js';
import { createMetering, type Metering } from '../metering/index.js';
import type { HttpAppOptions } from '../http/index.js';
import type { App } from '../route-contract/index.js';

export interface PipelinePartsOptions {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
  authenticator?: Authenticator;
  metering?: Metering;
}

export interface PipelineParts {
  metrics: Metrics;
  authenticator: Authenticator;
  metering: Metering;
  /** What every HTTP role passes to `buildHttpApp` for its pipeline: the same stages, metering only when it is on. */
  httpPipeline: Pick<HttpAppOptions, 'config' | 'database' | 'clock' | 'logger' | 'authenticator' | 'meter' | 'metrics'>;
  /** Closes, with the app, what was built here (not what the caller passed in). */
  closeWith(app: App): void;
}

/**
 * The parts of the request pipeline every HTTP role shares (metrics, the authenticator, metering),
 * each built unless the caller passes its own (tests, `suigw dev` sharing them between apps).
 */
export async function pipelineParts(options: PipelinePartsOptions): Promise<PipelineParts> {
  const { config, database, clock, logger } = options;
  const metrics = options.metrics ?? new Metrics();
  const authenticator = options.authenticator ?? new Authenticator({
    database, clock, ttlMs: config.keyCacheTtlMs, logger, cacheLookups: metrics.keyCacheLookups,
  });
  if (options.authenticator === undefined) await authenticator.start();
  const metering = options.metering ?? (await createMetering({ config, database, clock, logger, metrics }));
  return {
    metrics, authenticator, metering,
    httpPipeline: { config, database, clock, logger, authenticator, meter: config.metering.enabled ? metering.meter : undefined, metrics },
    closeWith: (app) => {
      // onClose runs once the server has answered every request in flight: the flush sees them all.
      if (options.metering === undefined) app.addHook('onClose', async () => metering.close());
      if (options.authenticator === undefined) app.addHook('onClose', async () => authenticator.stop());
    },
  };
}
