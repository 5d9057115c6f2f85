import { openRuntime, readConfig } from './runtime.js';

/** `suigw migrate`: applies pending migrations and exits. */
export async function runMigrate(): Promise<void> {
  const config = readConfig();
  const runtime = await openRuntime(config, { migrate: false });
  try {
    const { migrate } = await import('../db/index.js');
    const result = await migrate(runtime.database, (name) => console.log(`applied ${name}`));
    console.log(`${result.applied.length} applied, ${result.alreadyApplied} already applied`);
  } finally {
    await runtime.database.close();
  }
}
