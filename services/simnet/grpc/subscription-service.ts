import { GrpcTypes } from '@mysten/sui/grpc';
import type { RpcInputStream, ServerCallContext } from '@protobuf-ts/runtime-rpc';
import type { CheckpointRecord, LedgerReader } from '../ledger/index.js';
import { checkpointToProto } from './convert-system.js';
import { eventToProto, executedTransactionToProto } from './convert-transactions.js';
import { eventPredicate, transactionPredicate } from './filters.js';
import { ReadMask, applyReadMask } from './read-mask.js';

/**
 * Streams sealed checkpoints from the tip as they are sealed: in order, without gaps, until the
 * client cancels or the server stops. Queued checkpoints are sent one at a time so a slow
 * client sees every checkpoint (memory grows with its backlog, as simnet has no eviction).
 */
async function followCheckpoints(ledger: LedgerReader, context: ServerCallContext, send: (checkpoint: CheckpointRecord) => Promise<void>): Promise<void> {
  const queue: CheckpointRecord[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = ledger.onCheckpoint((checkpoint) => {
    queue.push(checkpoint);
    wake?.();
  });
  const removeCancel = context.onCancel(() => wake?.());
  try {
    while (!context.cancelled) {
      const next = queue.shift();
      if (next) {
        await send(next);
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    removeCancel();
  }
}

export class SubscriptionServiceImpl {
  readonly #ledger: LedgerReader;

  constructor(ledger: LedgerReader) {
    this.#ledger = ledger;
  }

  async subscribeCheckpoints(request: GrpcTypes.SubscribeCheckpointsRequest, responses: RpcInputStream<GrpcTypes.SubscribeCheckpointsResponse>, context: ServerCallContext): Promise<void> {
    const mask = ReadMask.parse(request.readMask, 'sequence_number,digest').validate(GrpcTypes.Checkpoint);
    const matches = request.filter ? transactionPredicate(request.filter) : undefined;
    await followCheckpoints(this.#ledger, context, async (checkpoint) => {
      let proto = checkpointToProto(this.#ledger, checkpoint, mask);
      if (matches && mask.has('transactions')) {
        proto = { ...proto, transactions: proto.transactions.filter((_, index) => matches(this.#ledger.checkpointTransactions(checkpoint.sequenceNumber)[index]!)) };
      }
      await responses.send({ cursor: checkpoint.sequenceNumber, checkpoint: applyReadMask(GrpcTypes.Checkpoint, proto, mask) });
    });
  }

  async subscribeTransactions(request: GrpcTypes.SubscribeTransactionsRequest, responses: RpcInputStream<GrpcTypes.SubscribeTransactionsResponse>, context: ServerCallContext): Promise<void> {
    const mask = ReadMask.parse(request.readMask, 'digest').validate(GrpcTypes.ExecutedTransaction);
    const matches = transactionPredicate(request.filter);
    await followCheckpoints(this.#ledger, context, async (checkpoint) => {
      for (const transaction of this.#ledger.checkpointTransactions(checkpoint.sequenceNumber)) {
        if (!matches(transaction)) continue;
        await responses.send({
          transaction: applyReadMask(GrpcTypes.ExecutedTransaction, executedTransactionToProto(transaction, mask, this.#ledger), mask),
          watermark: { checkpoint: checkpoint.sequenceNumber },
        });
      }
    });
  }

  async subscribeEvents(request: GrpcTypes.SubscribeEventsRequest, responses: RpcInputStream<GrpcTypes.SubscribeEventsResponse>, context: ServerCallContext): Promise<void> {
    const mask = ReadMask.parse(request.readMask, 'package_id,module,sender,event_type,checkpoint,transaction_digest,event_index').validate(GrpcTypes.Event);
    const matches = eventPredicate(request.filter);
    await followCheckpoints(this.#ledger, context, async (checkpoint) => {
      for (const transaction of this.#ledger.checkpointTransactions(checkpoint.sequenceNumber)) {
        for (const event of transaction.events) {
          if (!matches(event)) continue;
          await responses.send({ event: applyReadMask(GrpcTypes.Event, eventToProto(event), mask), watermark: { checkpoint: checkpoint.sequenceNumber } });
        }
      }
    });
  }
}
