import { join } from 'node:path';
import { createLogger, loadConfig, systemClock, ConfigError, type Clock, type Config, type Logger } from '../core/index.js';
import { migrate, openDatabase, type Database } from '../db/index.js';

/** What every role starts from: the parsed config, a logger, the clock and the database. */
export interface Runtime {
  config: Readonly<Config>;
  logger: Logger;
  clock: Clock;
  database: Database;
}

export function readConfig(overrides: Record<string, string | undefined> = {}): Readonly<Config> {
  try {
    return loadConfig({ ...process.env, ...overrides });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
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

/** Stops cleanly on SIGINT/SIGTERM, once. */
export function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: stopping…`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}
