import { sql } from 'kysely';
import type { Database } from '../db/index.js';

// Any fixed number: every billing process of a deployment takes the same advisory lock.
const CHARGING_LOCK = 4_242_022;

/**
 * One charger at a time per deployment: the sponsor key's gas coin must have one signer, or two
 * charges could be built on the same coin version (one would never run, and on Sui an
 * equivocated coin is locked until the epoch ends). PostgreSQL: a session advisory lock on a
 * connection of its own (a killed process releases it with its connection). PGlite is one
 * process: a mutex in the process is the whole story.
 */
export class ChargingLock {
  readonly #database: Database;
  #held = false;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Runs `work` holding the lock; undefined (work not run) when another charger holds it. */
  async tryRun<T>(work: () => Promise<T>): Promise<T | undefined> {
    return (await this.#attempt(work))?.value;
  }

  /**
   * Runs `work` holding the lock, waiting up to `waitMs` (wall time, tried every `pollMs`) while
   * another charger holds it: a billing pass holds it for seconds. Undefined (work not run) when
   * it is still held then. `onBusy` is told once, when the first try finds it held.
   */
  async runWithin<T>(waitMs: number, work: () => Promise<T>, options: { pollMs?: number; onBusy?: () => void } = {}): Promise<T | undefined> {
    const { pollMs = 250, onBusy } = options;
    const deadline = Date.now() + waitMs;
    for (let tries = 0; ; tries++) {
      const ran = await this.#attempt(work);
      if (ran) return ran.value;
      if (tries === 0) onBusy?.();
      if (Date.now() + pollMs > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  async #attempt<T>(work: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (this.#held) return undefined;
    this.#held = true;
    try {
      if (this.#database.kind === 'pglite') return { value: await work() };
      return await this.#database.db.connection().execute(async (connection) => {
        const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${CHARGING_LOCK}) as locked`.execute(connection);
        if (!rows[0]?.locked) return undefined;
        try {
          return { value: await work() };
        } finally {
          await sql`select pg_advisory_unlock(${CHARGING_LOCK})`.execute(connection);
        }
      });
    } finally {
      this.#held = false;
    }
  }
}
