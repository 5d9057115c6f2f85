import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type DatabaseConnection } from 'kysely';
import type { Database } from './database.js';
import type { DatabaseSchema } from './schema.js';

/** What a query against an unopened database fails with. */
export class DatabaseNotOpened extends Error {
  override readonly name = 'DatabaseNotOpened';
}

class RefusingDriver extends DummyDriver {
  readonly #purpose: string;

  constructor(purpose: string) {
    super();
    this.#purpose = purpose;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    throw new DatabaseNotOpened(`${this.#purpose} opens no database: nothing may query it`);
  }
}

/**
 * A database handle that connects to nothing, for building an app that is never served (the
 * Envoy roles read the gateway's route table this way). Every query and `exec` fails with
 * DatabaseNotOpened rather than returning empty rows; `listen` subscribes to nothing, since a
 * built app may subscribe to invalidations it will never receive.
 */
export function unopenedDatabase(purpose: string): Database {
  const db = new Kysely<DatabaseSchema>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new RefusingDriver(purpose),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return {
    db,
    kind: 'postgres',
    async exec() {
      throw new DatabaseNotOpened(`${purpose} opens no database: nothing may run SQL on it`);
    },
    async listen() {
      return async () => undefined;
    },
    async close() {
      await db.destroy();
    },
  };
}
