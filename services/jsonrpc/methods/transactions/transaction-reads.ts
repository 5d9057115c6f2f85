import type { GrpcTypes } from '@mysten/sui/grpc';
import { isUpstreamError } from '../../../upstream/index.js';
import { JSONRPC_ERROR, JsonRpcError, type JsonRpcContext, type JsonRpcMethod } from '../../method.js';
import { transactionQuery } from './filters.js';
import { pageLimit, queryOptions, readPage, MAX_PAGE } from './ledger-pages.js';
import type { Json } from './legacy-values.js';
import { readMaskFor, renderTransactionResponse, type ResponseOptions } from './render-response.js';

/** sui_getTransactionBlock, sui_multiGetTransactionBlocks, suix_queryTransactionBlocks. */


export function transactionNotFound(digest: string): JsonRpcError {
  // The node's words for a digest it does not know.
  return new JsonRpcError(JSONRPC_ERROR.invalidParams, `Could not find the referenced transaction [TransactionDigest(${digest})].`, { code: 'NOT_FOUND' });
}

function isNotFound(error: unknown): boolean {
  return isUpstreamError(error) && error.kind === 'not_found';
}

export async function getExecuted(context: JsonRpcContext, digest: string, readMask: string[]): Promise<GrpcTypes.ExecutedTransaction> {
  try {
    const { response } = await context.upstream.call('GetTransaction', (o) =>
      context.upstream.grpc.ledgerService.getTransaction({ digest, readMask: { paths: readMask } }, o), { idempotent: true });
    if (!response.transaction) throw transactionNotFound(digest);
    return response.transaction;
  } catch (error) {
    if (isNotFound(error)) throw transactionNotFound(digest);
    throw error;
  }
}

const options = (params: Readonly<Record<string, unknown>>): ResponseOptions => (params.options ?? {}) as ResponseOptions;

const OPTION_FLAGS = ['showInput', 'showRawInput', 'showEffects', 'showEvents', 'showObjectChanges', 'showBalanceChanges', 'showRawEffects'] as const;

/** A rendering's cache key: the digest and which parts the options show. */
function renderingKey(digest: string, opts: ResponseOptions): string {
  return `${digest}:${OPTION_FLAGS.map((flag) => (opts[flag] ? '1' : '0')).join('')}`;
}

/** Only a transaction in a checkpoint is final: before it, its checkpoint and timestamp are still to come. */
export function isFinal(tx: GrpcTypes.ExecutedTransaction): boolean {
  return tx.checkpoint !== undefined;
}

const getTransactionBlock: JsonRpcMethod = {
  name: 'sui_getTransactionBlock',
  translatesTo: 'gRPC LedgerService.GetTransaction (read mask from the options; cached once in a checkpoint)',
  unfilled: [
    'transaction.data: pure inputs of Move calls as BCS bytes (valueType null)',
    'objectChanges: published.modules (empty)',
  ],
  async handle(params, context) {
    const digest = String(params.digest);
    const opts = options(params);
    const key = renderingKey(digest, opts);
    const kept = context.cache.get<Json>('transaction', key);
    if (kept !== undefined) return kept;
    const tx = await getExecuted(context, digest, readMaskFor(opts));
    const rendered = renderTransactionResponse(tx, opts);
    if (isFinal(tx)) context.cache.set('transaction', key, rendered);
    return rendered;
  },
};

const multiGetTransactionBlocks: JsonRpcMethod = {
  name: 'sui_multiGetTransactionBlocks',
  translatesTo: 'gRPC LedgerService.BatchGetTransactions (the digests not in the cache)',
  unfilled: ['as sui_getTransactionBlock'],
  async handle(params, context) {
    const digests = (params.digests as string[]).map(String);
    if (digests.length > MAX_PAGE) {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${digests.length} digests exceed the limit of ${MAX_PAGE}`, { code: 'BATCH_TOO_LARGE' });
    }
    if (new Set(digests).size !== digests.length) {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: the list of digests contains duplicates');
    }
    if (digests.length === 0) return [];
    const opts = options(params);
    const rendered = digests.map((digest) => context.cache.get<Json>('transaction', renderingKey(digest, opts)));
    const missing = digests.filter((_, i) => rendered[i] === undefined);
    if (missing.length === 0) return rendered;
    const { response } = await context.upstream.call('BatchGetTransactions', (o) =>
      context.upstream.grpc.ledgerService.batchGetTransactions({ digests: missing, readMask: { paths: readMaskFor(opts) } }, o), { idempotent: true });
    // A node answers the whole call with an error when one digest is unknown.
    const fetched = new Map(response.transactions.map((entry, i) => {
      if (entry.result.oneofKind !== 'transaction') throw transactionNotFound(missing[i]!);
      const tx = entry.result.transaction;
      const answer = renderTransactionResponse(tx, opts);
      if (isFinal(tx)) context.cache.set('transaction', renderingKey(missing[i]!, opts), answer);
      return [missing[i]!, answer];
    }));
    return digests.map((digest, i) => rendered[i] ?? fetched.get(digest)!);
  },
};

const queryTransactionBlocks: JsonRpcMethod = {
  name: 'suix_queryTransactionBlocks',
  translatesTo: 'gRPC LedgerService.ListTransactions (DNF filter; our opaque cursors wrap its watermarks)',
  unfilled: [
    'filters InputObject, ChangedObject, TransactionKind, TransactionKindIn: -32602 UNSUPPORTED_FILTER',
    'as sui_getTransactionBlock for each item',
  ],
  async handle(params, context) {
    const query = (params.query ?? {}) as { filter?: Record<string, unknown> | null; options?: ResponseOptions | null };
    const opts = query.options ?? {};
    const translated = transactionQuery(query.filter);
    const page = {
      method: 'suix_queryTransactionBlocks', query: query.filter ?? null,
      cursor: params.cursor as string | undefined, limit: pageLimit(params.limit), descending: params.descending_order === true,
    };
    const request: GrpcTypes.ListTransactionsRequest = {
      readMask: { paths: readMaskFor(opts) },
      ...(translated.filter ? { filter: translated.filter } : {}),
      ...(translated.startCheckpoint !== undefined ? { startCheckpoint: translated.startCheckpoint, endCheckpoint: translated.endCheckpoint } : {}),
      options: queryOptions(context, page),
    };
    const result = await readPage<GrpcTypes.ExecutedTransaction>(context, 'ListTransactions', page,
      (o) => context.upstream.grpc.ledgerService.listTransactions(request, o),
      (frame) => {
        const f = frame as GrpcTypes.ListTransactionsResponse;
        return { item: f.transaction, watermark: f.watermark, end: f.end };
      });
    return { data: result.items.map((tx) => renderTransactionResponse(tx, opts)), nextCursor: result.nextCursor, hasNextPage: result.hasNextPage };
  },
};

export const TRANSACTION_READ_METHODS: readonly JsonRpcMethod[] = [getTransactionBlock, multiGetTransactionBlocks, queryTransactionBlocks];
