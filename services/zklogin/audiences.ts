import { randomBytes } from 'node:crypto';
import { toBase58 } from '@mysten/sui/utils';
import type { Kysely } from 'kysely';
import { isStorableText, type Clock } from '../core/index.js';
import type { DatabaseSchema } from '../db/index.js';

/** An OAuth client ID an organization accepts as the `aud` of zkLogin tokens. */
export interface Audience {
  id: string;
  audience: string;
  createdAt: string;
}

/** The organization's audience list (table `zklogin_audiences`, migration 005). */
export class AudienceStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #clock: Clock;

  constructor(db: Kysely<DatabaseSchema>, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  async list(organizationId: string): Promise<Audience[]> {
    const rows = await this.#db.selectFrom('zklogin_audiences').select(['id', 'audience', 'created_at'])
      .where('organization_id', '=', organizationId).orderBy('created_seq').execute();
    return rows.map(toAudience);
  }

  /** Adds the audience; adding one already on the list returns the existing entry (`created: false`). */
  async add(organizationId: string, audience: string): Promise<{ audience: Audience; created: boolean }> {
    const id = `aud_${toBase58(randomBytes(12))}`;
    const inserted = await this.#db.insertInto('zklogin_audiences')
      .values({ id, organization_id: organizationId, audience, created_at: new Date(this.#clock.now()) })
      .onConflict((conflict) => conflict.columns(['organization_id', 'audience']).doNothing())
      .returning(['id', 'audience', 'created_at']).executeTakeFirst();
    if (inserted) return { audience: toAudience(inserted), created: true };
    const existing = await this.#db.selectFrom('zklogin_audiences').select(['id', 'audience', 'created_at'])
      .where('organization_id', '=', organizationId).where('audience', '=', audience).executeTakeFirstOrThrow();
    return { audience: toAudience(existing), created: false };
  }

  /** Removes the entry; false when the organization has no entry with this id. */
  async remove(organizationId: string, id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom('zklogin_audiences').where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async isAllowed(organizationId: string, audience: string): Promise<boolean> {
    // Text the list cannot hold is not on it (a JWT's `aud` is the issuer's to write).
    if (!isStorableText(audience)) return false;
    const row = await this.#db.selectFrom('zklogin_audiences').select('id')
      .where('organization_id', '=', organizationId).where('audience', '=', audience).executeTakeFirst();
    return row !== undefined;
  }
}

function toAudience(row: { id: string; audience: string; created_at: Date }): Audience {
  return { id: row.id, audience: row.audience, createdAt: new Date(row.created_at).toISOString() };
}
