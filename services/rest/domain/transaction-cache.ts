import { GrpcTypes } from '@mysten/sui/grpc';
import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.js';

type Executed = GrpcTypes.ExecutedTransaction;

/** Finalized transactions by digest, per network. */
export interface TransactionCache {
  getMany(network: string, digests: readonly string[]): Promise<Map<string, Executed>>;
  putMany(network: string, transactions: readonly Executed[]): Promise<void>;
}


export class PostgresTransactionCache implements TransactionCache {
  readonly #db: Kysely<DatabaseSchema>;
  constructor(db: Kysely<DatabaseSchema>) { this.#db = db; }

  async getMany(network: string, digests: readonly string[]): Promise<Map<string, Executed>> {
    const found = new Map<string, Executed>();
    if (digests.length === 0) return found;
    const rows = await this.#db.selectFrom('rest_transaction_cache').select(['digest', 'payload'])
      .where('network', '=', network).where('digest', 'in', [...digests]).execute();
    for (const row of rows) found.set(row.digest, GrpcTypes.ExecutedTransaction.fromBinary(row.payload));
    return found;
  }

  async putMany(network: string, transactions: readonly Executed[]): Promise<void> {
    const rows = transactions.filter((tx) => tx.digest && tx.checkpoint !== undefined).map((tx) => ({
      network, digest: tx.digest as string, checkpoint: tx.checkpoint as bigint,
      payload: GrpcTypes.ExecutedTransaction.toBinary(tx),
    }));
    if (rows.length === 0) return;
    await this.#db.insertInto('rest_transaction_cache').values(rows)
      .onConflict((oc) => oc.columns(['network', 'digest']).doNothing()).execute();
  }

  async count(network: string): Promise<number> {
    const row = await this.#db.selectFrom('rest_transaction_cache').select(sql<string>`count(*)`.as('n')).where('network', '=', network).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}

/** For tests and database-less tools; bounded so it cannot grow without limit. */
export class MemoryTransactionCache implements TransactionCache {
  readonly #rows = new Map<string, Uint8Array>();
  readonly #max: number;
  constructor(max = 10_000) { this.#max = max; }

  async getMany(network: string, digests: readonly string[]): Promise<Map<string, Executed>> {
    const found = new Map<string, Executed>();
    for (const digest of digests) {
      const row = this.#rows.get(`${network}/${digest}`);
      if (row) found.set(digest, GrpcTypes.ExecutedTransaction.fromBinary(row));
    }
    return found;
  }

  async putMany(network: string, transactions: readonly Executed[]): Promise<void> {
    for (const tx of transactions) {
      if (!tx.digest || tx.checkpoint === undefined) continue;
      if (this.#rows.size >= this.#max) this.#rows.delete(this.#rows.keys().next().value as string);
      this.#rows.set(`${network}/${tx.digest}`, GrpcTypes.ExecutedTransaction.toBinary(tx));
    }
  }
}
