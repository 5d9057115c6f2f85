export { openDatabase, type Database, type OpenDatabaseOptions } from './database.js';
export { DatabaseNotOpened, unopenedDatabase } from './unopened-database.js';
export { migrate, type MigrationResult } from './migrate.js';
export type * from './schema.js';
export { databaseUnavailableError, isDatabaseUnavailable, DATABASE_RETRY_AFTER_S } from './unavailable.js';
export { insertBatches, ROWS_PER_INSERT } from './insert-batches.js';
