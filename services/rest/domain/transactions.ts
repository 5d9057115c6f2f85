import type { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { ApiError } from '../../core/errors.js';
import { sharedUpstream, type Upstream } from '../../upstream/index.js';
import type { ActivityItem, RawTransaction, TransactionBlock, TransactionStats } from '../schemas.js';
import type { NetworkContext } from './context.js';
import type { CursorCodec } from '../../core/cursor.js';
import {
  includeAll, RAW_TRANSACTION_READ_MASK, stripBcs, toActivityItem, toTransactionBlock, TRANSACTION_READ_MASK, type TransactionInclude,
} from './map-transaction.js';
import { base64, timestampMs } from './proto-values.js';
import type { TransactionCache } from './transaction-cache.js';
import { ask, askGraphQL, askOptional, awaitShared, fieldMask } from './upstream-calls.js';

type Executed = GrpcTypes.ExecutedTransaction;

export interface Page<T> { items: T[]; cursor?: string; hasNext: boolean }

export interface TransactionQuery {
  limit: number;
  cursor?: string;
  sender?: string;
  /** Transactions sent by or affecting this address (the account endpoints' includeReceived). */
  affectedAddress?: string;
  status?: 'Success' | 'Error';
  orderBy: 'asc' | 'desc';
}

interface DigestPage {
  transactions: {
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
    edges: { cursor: string; node: { digest: string } }[];
  } | null;
}

const DIGEST_PAGE = `query DigestPage($first: Int, $last: Int, $after: String, $before: String, $filter: TransactionFilter) {
  transactions(first: $first, last: $last, after: $after, before: $before, filter: $filter) {
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { digest } }
  }
}`;

/** Upstream pages read at most per request when a status filter drops transactions. */
const MAX_SCAN_PAGES = 5;
/** Sui GraphQL's default maximum page size. */
const GRAPHQL_PAGE = 50;
const STATS_TTL_MS = 1_000;
/** Whose turn the shared stats read takes in the upstream's queue: its own, no organization's. */
const STATS_TENANT = 'shared:transaction-stats';
/** gRPC BatchGetTransactions takes at most this many digests per call. */
const BATCH_SIZE = 50;

export interface BatchResult {
  transactions: Executed[];
  fromDatabase: number;
  fromRpc: number;
}

export class TransactionService {
  readonly #cache: TransactionCache;
  readonly #cursors: CursorCodec;
  readonly #statsCheckpoints: number;
  readonly #now: () => number;
  /** Stats per network, shared by the requests of the same second (each costs one call per checkpoint). */
  readonly #stats = new Map<string, { at: number; value: Promise<TransactionStats> }>();

  constructor(deps: { cache: TransactionCache; cursors: CursorCodec; statsCheckpoints?: number; now?: () => number }) {
    this.#cache = deps.cache;
    this.#cursors = deps.cursors;
    this.#statsCheckpoints = deps.statsCheckpoints ?? 20;
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Transactions by digest, in the order asked, missing ones left out: first from the
   * PostgreSQL cache of finalized transactions, the rest from gRPC (then cached when finalized).
   */
  async getMany(ctx: NetworkContext, digests: readonly string[]): Promise<BatchResult> {
    const unique = [...new Set(digests)];
    const cached = await this.#cache.getMany(ctx.network, unique);
    const missing = unique.filter((d) => !cached.has(d));
    const fetched = new Map<string, Executed>();
    for (let i = 0; i < missing.length; i += BATCH_SIZE) {
      const chunk = missing.slice(i, i + BATCH_SIZE);
      const response = await ask(ctx.upstream, 'BatchGetTransactions', (o) =>
        ctx.upstream.grpc.ledgerService.batchGetTransactions({ digests: chunk, readMask: fieldMask(TRANSACTION_READ_MASK) }, o));
      for (const result of response.transactions) {
        if (result.result.oneofKind === 'transaction' && result.result.transaction.digest) {
          fetched.set(result.result.transaction.digest, stripBcs(result.result.transaction));
        }
      }
    }
    const finalized = [...fetched.values()].filter((tx) => tx.checkpoint !== undefined);
    await this.#cache.putMany(ctx.network, finalized);
    const transactions = unique.map((d) => cached.get(d) ?? fetched.get(d)).filter((tx): tx is Executed => tx !== undefined);
    return { transactions, fromDatabase: cached.size, fromRpc: fetched.size };
  }

  async getRaw(ctx: NetworkContext, digest: string): Promise<RawTransaction> {
    const response = await ask(ctx.upstream, 'GetTransaction', (o) =>
      ctx.upstream.grpc.ledgerService.getTransaction({ digest, readMask: fieldMask(RAW_TRANSACTION_READ_MASK) }, o), 'TRANSACTION_NOT_FOUND');
    const tx = response.transaction;
    if (!tx) throw new ApiError('TRANSACTION_NOT_FOUND');
    const ts = timestampMs(tx.timestamp);
    return {
      digest: tx.digest ?? digest,
      transactionBcs: base64(tx.transaction?.bcs?.value),
      effectsBcs: tx.effects?.bcs?.value ? base64(tx.effects.bcs.value) : null,
      signatures: tx.signatures.map((s) => base64(s.bcs?.value)),
      checkpoint: tx.checkpoint === undefined ? null : tx.checkpoint.toString(),
      timestampMs: ts === null ? null : ts.toString(),
    };
  }

  /**
   * A page of transactions from GraphQL's transaction index (digests only), materialized through
   * `getMany`. Descending order walks `last/before`; the status filter is applied after reading,
   * scanning at most MAX_SCAN_PAGES upstream pages, so a page may hold fewer than `limit` items
   * while `hasNext` is still true.
   */
  async list(ctx: NetworkContext, kind: string, query: TransactionQuery): Promise<Page<Executed>> {
    // Addresses in their one spelling: the same query in upper case is the same query.
    const filter: Record<string, string> = {};
    if (query.sender) filter.sentAddress = normalizeSuiAddress(query.sender);
    if (query.affectedAddress) filter.affectedAddress = normalizeSuiAddress(query.affectedAddress);
    const scope = { kind, network: ctx.network, query: [filter.sentAddress ?? '', filter.affectedAddress ?? '', query.status ?? '', query.orderBy].join('|') };
    let position = query.cursor ? this.#cursors.decode(scope, query.cursor) : undefined;
    const items: Executed[] = [];
    let hasNext = false;
    let lastPosition: string | undefined;
    const maxPages = MAX_SCAN_PAGES + Math.ceil(query.limit / GRAPHQL_PAGE) - 1;
    for (let scanned = 0; scanned < maxPages && items.length < query.limit; scanned += 1) {
      const want = Math.min(query.limit - items.length, GRAPHQL_PAGE);
      const desc = query.orderBy === 'desc';
      const variables = desc ? { last: want, before: position ?? null, filter } : { first: want, after: position ?? null, filter };
      const page = await askGraphQL<DigestPage>(ctx.upstream, 'transactions', DIGEST_PAGE, variables);
      const connection = page.transactions;
      if (!connection) break;
      const edges = desc ? [...connection.edges].reverse() : connection.edges;
      const { transactions } = await this.getMany(ctx, edges.map((e) => e.node.digest));
      const byDigest = new Map(transactions.map((tx) => [tx.digest, tx]));
      for (const edge of edges) {
        const tx = byDigest.get(edge.node.digest);
        lastPosition = edge.cursor;
        if (tx && matchesStatus(tx, query.status)) items.push(tx);
      }
      hasNext = desc ? connection.pageInfo.hasPreviousPage : connection.pageInfo.hasNextPage;
      if (!hasNext || edges.length === 0) break;
      position = lastPosition;
    }
    return { items, hasNext, ...(hasNext && lastPosition ? { cursor: this.#cursors.encode(scope, lastPosition) } : {}) };
  }

  async listBlocks(ctx: NetworkContext, kind: string, query: TransactionQuery, include: TransactionInclude): Promise<Page<TransactionBlock>> {
    const page = await this.list(ctx, kind, query);
    return { ...page, items: page.items.map((tx) => toTransactionBlock(tx, include)) };
  }

  async listActivity(ctx: NetworkContext, address: string, query: TransactionQuery): Promise<Page<ActivityItem>> {
    const page = await this.list(ctx, 'account-activity', query);
    return { ...page, items: page.items.map((tx) => toActivityItem(tx, address, includeAll)) };
  }

  /**
   * Success/error counts over the transactions of the latest `statsCheckpoints` checkpoints
   * (a recent window: the chain keeps no global per-status counters). The requests of one second
   * on a network share one read, which runs on the network's own upstream handle (its own budget,
   * its own turn in the upstream's queue): a request leaving or running out of time ends only its
   * own wait, never the read the others wait for.
   */
  stats(ctx: NetworkContext): Promise<TransactionStats> {
    return awaitShared(ctx.upstream, 'transaction stats', this.#sharedStats(ctx));
  }

  #sharedStats(ctx: NetworkContext): Promise<TransactionStats> {
    const hit = this.#stats.get(ctx.network);
    if (hit && this.#now() - hit.at < STATS_TTL_MS) return hit.value;
    const value = this.#readStats(sharedUpstream(ctx.upstream, STATS_TENANT));
    this.#stats.set(ctx.network, { at: this.#now(), value });
    value.catch(() => this.#stats.delete(ctx.network));
    return value;
  }

  async #readStats(upstream: Upstream): Promise<TransactionStats> {
    const info = await ask(upstream, 'GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o));
    const height = info.checkpointHeight ?? 0n;
    const sequence: bigint[] = [];
    for (let s = height; s >= 0n && sequence.length < this.#statsCheckpoints; s -= 1n) sequence.push(s);
    const checkpoints = await Promise.all(sequence.map((s) => askOptional(upstream, 'GetCheckpoint', (o) =>
      upstream.grpc.ledgerService.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: s }, readMask: fieldMask(['sequence_number', 'transactions.effects.status']) }, o))));
    let success = 0;
    let error = 0;
    for (const checkpoint of checkpoints) {
      for (const tx of checkpoint?.checkpoint?.transactions ?? []) {
        if (tx.effects?.status?.success === false) error += 1; else success += 1;
      }
    }
    return { success, error, total: success + error };
  }
}

function matchesStatus(tx: Executed, status: TransactionQuery['status']): boolean {
  if (!status) return true;
  const success = tx.effects?.status?.success !== false;
  return status === 'Success' ? success : !success;
}
