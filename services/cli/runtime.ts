import { join } from 'node:path';
import { createLogger, flushLogger, loadConfig, systemClock, upstreamVariables, ConfigError, type Clock, type Config, type Logger } from '../core/index.js';
import { migrate, openDatabase, type Database } from '../db/index.js';
import { installPlans, PlansFileError, readPlansFile } from '../plans/index.js';

/** What every role starts from: the parsed config, a logger, the clock and the database. */
export interface Runtime {
  config: Readonly<Config>;
  logger: Logger;
  clock: Clock;
  database: Database;
}

/**
 * The configuration every role starts from, with the deployment's plans file (if any) put in
 * force; an invalid setting or plans file stops the process with its errors (exit 2).
 */
export function readConfig(overrides: Record<string, string | undefined> = {}): Readonly<Config> {
  try {
    const config = loadConfig({ ...process.env, ...overrides });
    if (config.metering.plansFile !== undefined) installPlans(readPlansFile(config.metering.plansFile));
    return config;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof PlansFileError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * A role that runs as several replicas needs the one shared secret: a cursor or a wallet challenge
 * signed by one replica must verify on the next. Only `suigw dev` may make one up.
 */
export function requireSecret(config: Readonly<Config>, role: string): void {
  if (config.secret !== undefined) return;
  console.error(
    `suigw ${role}: SUIGW_SECRET is required (at least 32 characters, the same on every replica; ` +
      'it signs pagination cursors and wallet challenges). Generate one with: openssl rand -hex 32',
  );
  process.exit(2);
}

/**
 * What a serving role (gateway, grpc, streams) warns about at start-up: settings that run but
 * are rarely meant outside `suigw dev`. Each network it serves without an upstream answers its
 * data calls 404 NETWORK_NOT_CONFIGURED while `/health` says ok; without DATABASE_URL the data
 * lives in an embedded database under SUIGW_DATA_DIR that no replica shares.
 */
export function servingWarnings(config: Readonly<Config>): string[] {
  const warnings: string[] = [];
  for (const network of config.networks) {
    const { grpcUrl, graphqlUrl } = config.endpoints[network];
    if (grpcUrl === undefined && graphqlUrl === undefined) {
      const names = upstreamVariables(network);
      warnings.push(`${network} has no upstream (${names.grpc} and ${names.graphql} are unset): its data calls answer 404 NETWORK_NOT_CONFIGURED`);
    }
  }
  if (config.databaseUrl === undefined) {
    warnings.push(`DATABASE_URL is unset: the data is kept in an embedded database under ${config.dataDir}, which no other process or replica shares`);
  }
  return warnings;
}

/** Logs `servingWarnings` (once per process: workers each log their own). */
export function warnAboutServing(config: Readonly<Config>, logger: Logger, role: string): void {
  for (const warning of servingWarnings(config)) logger.warn({ role }, warning);
}

/** Opens the database (PGlite under the data dir unless DATABASE_URL) and, if asked, migrates it. */
export async function openRuntime(config: Readonly<Config>, options: { migrate: boolean }): Promise<Runtime> {
  const logger = createLogger(config.logLevel);
  const database = await openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, 'pgdata') });
  if (options.migrate) {
    await migrate(database, (name) => logger.info({ migration: name }, 'migration applied'));
  }
  return { config, logger, clock: systemClock, database };
}

/** Stops cleanly on SIGINT/SIGTERM, once, and writes out the log before exiting. */
export function onShutdown(stop: () => Promise<void>, logger?: Logger): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: stopping…`);
    stop().then(
      () => {
        if (logger) flushLogger(logger);
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error);
        if (logger) flushLogger(logger);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}
