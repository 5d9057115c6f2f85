import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Database } from './database.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any fixed number: every process that migrates takes the same advisory lock.
const MIGRATION_LOCK = 4_242_001;

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies `migrations/NNN_name.sql` in name order, each in its own transaction, exactly once.
 * Safe to run from several processes at once (an advisory lock serializes them).
 */
export async function migrate(database: Database, onApplied?: (name: string) => void): Promise<MigrationResult> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name)).sort();
  await database.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const applied: string[] = [];
  let alreadyApplied = 0;
  for (const file of files) {
    const name = file.replace(/\.sql$/, '');
    const sqlText = await readFile(join(MIGRATIONS_DIR, file), 'utf8');
    const escaped = name.replace(/'/g, "''");
    // The check happens inside the locked transaction, so two racing migrators apply it once.
    await database.exec(`
      BEGIN;
      SELECT pg_advisory_xact_lock(${MIGRATION_LOCK});
      DO $guard$ BEGIN
        IF EXISTS (SELECT 1 FROM schema_migrations WHERE name = '${escaped}') THEN
          RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'suigw:already-applied';
        END IF;
      END $guard$;
      ${sqlText}
      ;
      INSERT INTO schema_migrations (name) VALUES ('${escaped}');
      COMMIT;
    `).then(
      () => {
        applied.push(name);
        onApplied?.(name);
      },
      (error: unknown) => {
        if (error instanceof Error && error.message.includes('suigw:already-applied')) {
          alreadyApplied += 1;
          return;
        }
        throw new Error(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      },
    );
  }
  return { applied, alreadyApplied };
}
