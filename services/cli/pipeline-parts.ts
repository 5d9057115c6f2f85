import { Metrics, type Clock, type Config, type Logger } from '../core/index.js';
import type { Database } from '../db/index.js';
import type { Authenticator } from '../identity/index.js';
import type { Metering } from '../metering/index.js';
import { openPipeline, type OpenedPipeline, type RequestPipeline } from '../pipeline/index.js';
import type { HttpAppOptions } from '../http/index.js';
import type { App } from '../route-contract/index.js';
import { trustedIdentityOf } from './identity-tokens.js';

export interface PipelinePartsOptions {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
  /** Shared with other adapters of the same process (`suigw dev`); opened (and closed with the app) when absent. */
  pipeline?: OpenedPipeline;
}

export interface PipelineParts {
  metrics: Metrics;
  pipeline: RequestPipeline;
  authenticator: Authenticator;
  /** The limiter, ledger and usage recorder (built whether or not metering is on: `/v1/usage` reads what was recorded). */
  metering: Metering;
  /** What every HTTP role passes to `buildHttpApp` for its pipeline, the identity it trusts behind Envoy included. */
  httpPipeline: Pick<HttpAppOptions, 'config' | 'database' | 'clock' | 'logger' | 'pipeline' | 'metrics' | 'trustedIdentity'>;
  /** Closes, with the app, what was opened here (not what the caller passed in). */
  closeWith(app: App): void;
}

/** The request pipeline every HTTP role shares (services/pipeline's `openPipeline`), and the process's metrics. */
export async function pipelineParts(options: PipelinePartsOptions): Promise<PipelineParts> {
  const { config, database, clock, logger } = options;
  const metrics = options.metrics ?? new Metrics();
  const opened = options.pipeline ?? (await openPipeline({ config, database, clock, logger, metrics }));
  if (!opened.metering) throw new Error('an HTTP role needs the pipeline\'s metering stages');
  return {
    metrics, pipeline: opened.pipeline, authenticator: opened.authenticator, metering: opened.metering,
    httpPipeline: { config, database, clock, logger, pipeline: opened.pipeline, metrics, ...trustedIdentityOf(config, clock) },
    closeWith: (app) => {
      // onClose runs once the server has answered every request in flight: the flush sees them all.
      if (options.pipeline === undefined) app.addHook('onClose', async () => opened.close());
    },
  };
}
