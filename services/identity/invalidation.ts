import type { Database } from '../db/index.js';

/**
 * Cached principals must follow changes (disable, scope edits, plan changes) "within a few
 * seconds" on every process: each change NOTIFYs this channel, every authenticator LISTENs.
 */
export const IDENTITY_CHANNEL = 'suigw_identity';

export type IdentityChange =
  | { keyId: string }
  | { organizationId: string }
  | { created: true };

export async function publishIdentityChange(database: Database, change: IdentityChange): Promise<void> {
  const payload = JSON.stringify(change).replace(/'/g, "''");
  await database.exec(`NOTIFY ${IDENTITY_CHANNEL}, '${payload}'`);
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
