import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';

/**
 * Cached principals must follow changes (disable, scope edits, plan changes) "within a few
 * seconds" on every process: each change NOTIFYs this channel, every authenticator LISTENs.
 */
export const IDENTITY_CHANNEL = 'suigw_identity';

export type IdentityChange =
  | { keyId: string }
  | { organizationId: string }
  | { created: true };

/**
 * Announces a change inside the transaction that makes it: PostgreSQL delivers the notification
 * on commit and drops it on rollback, so no process hears of a change that did not happen or
 * misses one that did. Through kysely (never a raw `exec`), so it runs on the transaction's own
 * connection, on PostgreSQL and PGlite alike. The process that made the change also calls
 * `Authenticator.invalidate` itself before it replies: the notification comes back later.
 */
export async function notifyIdentityChange(trx: Kysely<DatabaseSchema>, change: IdentityChange): Promise<void> {
  await sql`select pg_notify(${IDENTITY_CHANNEL}, ${JSON.stringify(change)})`.execute(trx);
}

export function parseIdentityChange(payload: string): IdentityChange | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    if (typeof record['keyId'] === 'string') return { keyId: record['keyId'] };
    if (typeof record['organizationId'] === 'string') return { organizationId: record['organizationId'] };
    if (record['created'] === true) return { created: true };
    return undefined;
  } catch {
    return undefined;
  }
}
