import { GrpcTypes } from '@mysten/sui/grpc';
import type { RpcInputStream, ServerCallContext } from '@protobuf-ts/runtime-rpc';
import type { LedgerReader } from '../ledger/index.js';
import { checkpointToProto, epochToProto } from './convert-system.js';
import { objectToProto } from './convert-objects.js';
import { eventToProto, executedTransactionToProto } from './convert-transactions.js';
import { invalidArgument, notFound } from './errors.js';
import { eventPredicate, transactionPredicate } from './filters.js';
import { ReadMask, applyReadMask } from './read-mask.js';
import { parseAddress, parseDigest } from './validate.js';
import { toTimestamp } from './proto-values.js';



const OBJECT_DEFAULT = 'object_id,version,digest';
const MAX_BATCH = 1000;
const MAX_QUERY_LIMIT = 1000;

/** Positions travel as 8-byte big-endian cursors in `QueryOptions.after/before` and watermarks. */
function positionCursor(position: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(position));
  return bytes;
}

function parsePositionCursor(bytes: Uint8Array | undefined): number | undefined {
  if (!bytes || bytes.length === 0) return undefined;
  if (bytes.length !== 8) throw invalidArgument('invalid cursor');
  return Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0));
}

export class LedgerServiceImpl {
  readonly #ledger: LedgerReader;

  constructor(ledger: LedgerReader) {
    this.#ledger = ledger;
  }

  async getServiceInfo(): Promise<GrpcTypes.GetServiceInfoResponse> {
    const latest = this.#ledger.latestCheckpoint();
    return {
      chainId: this.#ledger.chainId,
      chain: 'simnet',
      epoch: this.#ledger.currentEpoch().epoch,
      checkpointHeight: latest.sequenceNumber,
      timestamp: toTimestamp(latest.timestampMs),
      lowestAvailableCheckpoint: 0n,
      lowestAvailableCheckpointObjects: 0n,
      server: 'suigw-simnet',
    };
  }

  #object(request: GrpcTypes.GetObjectRequest, mask: ReadMask): GrpcTypes.Object {
    const objectId = parseAddress(request.objectId, 'object_id');
    if (request.version !== undefined) {
      const record = this.#ledger.getObjectAtVersion(objectId, request.version);
      if (!record || 'deleted' in record) throw notFound(`object ${objectId} version ${request.version} not found`);
      return applyReadMask(GrpcTypes.Object, objectToProto(record, mask), mask);
    }
    const record = this.#ledger.getObject(objectId);
    if (!record) throw notFound(`object ${objectId} not found`);
    return applyReadMask(GrpcTypes.Object, objectToProto(record, mask), mask);
  }

  async getObject(request: GrpcTypes.GetObjectRequest): Promise<GrpcTypes.GetObjectResponse> {
    const mask = ReadMask.parse(request.readMask, OBJECT_DEFAULT).validate(GrpcTypes.Object);
    return { object: this.#object(request, mask) };
  }

  async batchGetObjects(request: GrpcTypes.BatchGetObjectsRequest): Promise<GrpcTypes.BatchGetObjectsResponse> {
    if (request.requests.length > MAX_BATCH) throw invalidArgument(`at most ${MAX_BATCH} objects per request`);
    const mask = ReadMask.parse(request.readMask, OBJECT_DEFAULT).validate(GrpcTypes.Object);
    return {
      objects: request.requests.map((entry): GrpcTypes.GetObjectResult => {
        try {
          return { result: { oneofKind: 'object', object: this.#object(entry, mask) } };
        } catch (error) {
          const { code, message } = error as { code: string; message: string };
          const status = code === 'NOT_FOUND' ? 5 : code === 'INVALID_ARGUMENT' ? 3 : 13;
          return { result: { oneofKind: 'error', error: { code: status, message, details: [] } } };
        }
      }),
    };
  }

  #transaction(digestInput: string | undefined, mask: ReadMask): GrpcTypes.ExecutedTransaction {
    const digest = parseDigest(digestInput, 'digest');
    const record = this.#ledger.getTransaction(digest);
    if (!record) throw notFound(`transaction ${digest} not found`);
    return applyReadMask(GrpcTypes.ExecutedTransaction, executedTransactionToProto(record, mask, this.#ledger), mask);
  }

  async getTransaction(request: GrpcTypes.GetTransactionRequest): Promise<GrpcTypes.GetTransactionResponse> {
    const mask = ReadMask.parse(request.readMask, 'digest').validate(GrpcTypes.ExecutedTransaction);
    return { transaction: this.#transaction(request.digest, mask) };
  }

  async batchGetTransactions(request: GrpcTypes.BatchGetTransactionsRequest): Promise<GrpcTypes.BatchGetTransactionsResponse> {
    if (request.digests.length > MAX_BATCH) throw invalidArgument(`at most ${MAX_BATCH} transactions per request`);
    const mask = ReadMask.parse(request.readMask, 'digest').validate(GrpcTypes.ExecutedTransaction);
    return {
      transactions: request.digests.map((digest): GrpcTypes.GetTransactionResult => {
        try {
          return { result: { oneofKind: 'transaction', transaction: this.#transaction(digest, mask) } };
        } catch (error) {
          const { code, message } = error as { code: string; message: string };
          return { result: { oneofKind: 'error', error: { code: code === 'NOT_FOUND' ? 5 : 3, message, details: [] } } };
        }
      }),
    };
  }

  async getCheckpoint(request: GrpcTypes.GetCheckpointRequest): Promise<GrpcTypes.GetCheckpointResponse> {
    const mask = ReadMask.parse(request.readMask, 'sequence_number,digest').validate(GrpcTypes.Checkpoint);
    const id = request.checkpointId;
    let checkpoint;
    if (id.oneofKind === 'sequenceNumber') {
      checkpoint = this.#ledger.getCheckpoint(id.sequenceNumber);
      if (!checkpoint) throw notFound(`checkpoint ${id.sequenceNumber} not found`);
    } else if (id.oneofKind === 'digest') {
      checkpoint = this.#ledger.getCheckpointByDigest(parseDigest(id.digest, 'digest'));
      if (!checkpoint) throw notFound(`checkpoint ${id.digest} not found`);
    } else {
      checkpoint = this.#ledger.latestCheckpoint();
    }
    return { checkpoint: applyReadMask(GrpcTypes.Checkpoint, checkpointToProto(this.#ledger, checkpoint, mask), mask) };
  }

  async getEpoch(request: GrpcTypes.GetEpochRequest): Promise<GrpcTypes.GetEpochResponse> {
    const mask = ReadMask.parse(request.readMask, 'epoch').validate(GrpcTypes.Epoch);
    const epoch = request.epoch === undefined ? this.#ledger.currentEpoch() : this.#ledger.getEpoch(request.epoch);
    if (!epoch) throw notFound(`epoch ${request.epoch} not found`);
    return { epoch: applyReadMask(GrpcTypes.Epoch, epochToProto(this.#ledger, epoch, mask), mask) };
  }

  async listCheckpoints(request: GrpcTypes.ListCheckpointsRequest, responses: RpcInputStream<GrpcTypes.ListCheckpointsResponse>, context: ServerCallContext): Promise<void> {
    const mask = ReadMask.parse(request.readMask, 'sequence_number,digest').validate(GrpcTypes.Checkpoint);
    const options = request.options ?? {};
    const limit = Math.min(options.limit || 50, MAX_QUERY_LIMIT);
    const latest = this.#ledger.latestCheckpoint().sequenceNumber;
    const start = request.startCheckpoint ?? 0n;
    const end = request.endCheckpoint ?? latest + 1n;
    const descending = options.ordering === GrpcTypes.Ordering.DESCENDING;
    const after = parsePositionCursor(options.after);
    const matches = transactionPredicate(request.filter);
    let sent = 0;
    const first = descending ? (after !== undefined ? BigInt(after) - 1n : end - 1n) : after !== undefined ? BigInt(after) + 1n : start;
    for (let sequence = first; descending ? sequence >= start : sequence < end && sequence <= latest; sequence += descending ? -1n : 1n) {
      if (context.cancelled) return;
      const checkpoint = this.#ledger.getCheckpoint(sequence);
      if (!checkpoint) break;
      if (request.filter && !this.#ledger.checkpointTransactions(sequence).some(matches)) continue;
      if (sent === limit) {
        await responses.send({ end: { reason: GrpcTypes.QueryEndReason.ITEM_LIMIT } });
        return;
      }
      await responses.send({ checkpoint: applyReadMask(GrpcTypes.Checkpoint, checkpointToProto(this.#ledger, checkpoint, mask), mask), watermark: { cursor: positionCursor(Number(sequence)), checkpoint: sequence } });
      sent++;
    }
    await responses.send({ end: { reason: GrpcTypes.QueryEndReason.CHECKPOINT_BOUND } });
  }

  async listTransactions(request: GrpcTypes.ListTransactionsRequest, responses: RpcInputStream<GrpcTypes.ListTransactionsResponse>, context: ServerCallContext): Promise<void> {
    const mask = ReadMask.parse(request.readMask, 'digest').validate(GrpcTypes.ExecutedTransaction);
    const matches = transactionPredicate(request.filter);
    const options = request.options ?? {};
    await streamPositioned(request, responses, context, {
      items: this.#ledger.iterateTransactions(startBound(options)),
      checkpointOf: ({ transaction }) => transaction.checkpoint,
      matches: ({ transaction }) => matches(transaction),
      message: ({ transaction }) => ({ transaction: applyReadMask(GrpcTypes.ExecutedTransaction, executedTransactionToProto(transaction, mask, this.#ledger), mask) }),
    });
  }

  async listEvents(request: GrpcTypes.ListEventsRequest, responses: RpcInputStream<GrpcTypes.ListEventsResponse>, context: ServerCallContext): Promise<void> {
    const mask = ReadMask.parse(request.readMask, 'package_id,module,sender,event_type,checkpoint,transaction_digest,event_index').validate(GrpcTypes.Event);
    const matches = eventPredicate(request.filter);
    const options = request.options ?? {};
    await streamPositioned(request, responses, context, {
      items: this.#ledger.iterateEvents(startBound(options)),
      checkpointOf: ({ event }) => event.checkpoint,
      matches: ({ event }) => matches(event),
      message: ({ event }) => ({ event: applyReadMask(GrpcTypes.Event, eventToProto(event), mask) }),
    });
  }
}

/**
 * Where a List* scan starts. QueryOptions' cursors are bounds in ledger order whatever the
 * ordering (`after` exclusive lower, `before` exclusive upper), so a descending page resumes
 * below `before`, as the proto documents ("pass the last Watermark.cursor as options.before").
 */
function startBound(options: { after?: Uint8Array; before?: Uint8Array; ordering?: GrpcTypes.Ordering }): { after?: number; descending: boolean } {
  const descending = options.ordering === GrpcTypes.Ordering.DESCENDING;
  const start = parsePositionCursor(descending ? options.before : options.after);
  return { ...(start !== undefined ? { after: start } : {}), descending };
}

interface PositionedQuery {
  options?: { limit?: number; ordering?: GrpcTypes.Ordering; after?: Uint8Array; before?: Uint8Array };
  startCheckpoint?: bigint;
  endCheckpoint?: bigint;
}

interface PositionedStream<T extends { position: number }, M> {
  items: Iterable<T>;
  checkpointOf(item: T): bigint | undefined;
  matches(item: T): boolean;
  message(item: T): M;
}

/**
 * The paging of ListTransactions and ListEvents: items in ledger order from the `after` cursor,
 * up to `before`, within the checkpoint range, each with its watermark; then why it ended.
 */
async function streamPositioned<T extends { position: number }, M>(
  request: PositionedQuery,
  responses: RpcInputStream<M & { watermark?: { cursor: Uint8Array; checkpoint?: bigint } } | { end: { reason: GrpcTypes.QueryEndReason } }>,
  context: ServerCallContext,
  stream: PositionedStream<T, M>,
): Promise<void> {
  const options = request.options ?? {};
  const limit = Math.min(options.limit || 50, MAX_QUERY_LIMIT);
  const descending = options.ordering === GrpcTypes.Ordering.DESCENDING;
  // The far bound: `before` going up, `after` going down (both exclusive, in ledger order).
  const stop = parsePositionCursor(descending ? options.after : options.before);
  let sent = 0;
  for (const item of stream.items) {
    if (context.cancelled) return;
    if (stop !== undefined && (descending ? item.position <= stop : item.position >= stop)) break;
    const checkpoint = stream.checkpointOf(item);
    if (!inRange(checkpoint, request.startCheckpoint, request.endCheckpoint) || !stream.matches(item)) continue;
    if (sent === limit) {
      await responses.send({ end: { reason: GrpcTypes.QueryEndReason.ITEM_LIMIT } });
      return;
    }
    await responses.send({ ...stream.message(item), watermark: { cursor: positionCursor(item.position), checkpoint } });
    sent++;
  }
  await responses.send({ end: { reason: GrpcTypes.QueryEndReason.CHECKPOINT_BOUND } });
}

function inRange(checkpoint: bigint | undefined, start: bigint | undefined, end: bigint | undefined): boolean {
  if (checkpoint === undefined) return false;
  return (start === undefined || checkpoint >= start) && (end === undefined || checkpoint < end);
}


