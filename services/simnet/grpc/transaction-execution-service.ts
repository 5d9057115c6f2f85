import { GrpcTypes } from '@mysten/sui/grpc';
import type { Ledger } from '../ledger/index.js';
import type { Executor } from '../execution/executor.js';
import { TransactionRejected } from '../execution/failure.js';
import { simulateTransaction, submitTransaction } from '../execution/submit.js';
import { executedTransactionToProto } from './convert-transactions.js';
import { invalidArgument } from './errors.js';
import { ReadMask, applyReadMask } from './read-mask.js';

const MAX_TRANSACTION_BYTES = 128 * 1024;

export class TransactionExecutionServiceImpl {
  readonly #ledger: Ledger;
  readonly #executor: Executor;

  constructor(ledger: Ledger, executor: Executor) {
    this.#ledger = ledger;
    this.#executor = executor;
  }

  async executeTransaction(request: GrpcTypes.ExecuteTransactionRequest): Promise<GrpcTypes.ExecuteTransactionResponse> {
    const mask = ReadMask.parse(request.readMask, 'effects.status,checkpoint').validate(GrpcTypes.ExecutedTransaction);
    const txBcs = request.transaction?.bcs?.value;
    if (!txBcs || txBcs.length === 0) throw invalidArgument('transaction.bcs is required');
    if (txBcs.length > MAX_TRANSACTION_BYTES) throw invalidArgument('transaction is too large');
    const signatures = request.signatures.map((signature) => signature.bcs?.value);
    if (signatures.some((bytes) => !bytes)) throw invalidArgument('signature.bcs is required');
    try {
      const record = await submitTransaction(this.#ledger, this.#executor, txBcs, signatures as Uint8Array[]);
      return { transaction: applyReadMask(GrpcTypes.ExecutedTransaction, executedTransactionToProto(record, mask, this.#ledger), mask) };
    } catch (error) {
      if (error instanceof TransactionRejected) throw invalidArgument(error.message);
      throw error;
    }
  }

  async simulateTransaction(request: GrpcTypes.SimulateTransactionRequest): Promise<GrpcTypes.SimulateTransactionResponse> {
    const mask = ReadMask.parse(request.readMask, 'transaction.effects.status').validate(GrpcTypes.SimulateTransactionResponse);
    if (!request.transaction) throw invalidArgument('transaction is required');
    const checks = request.checks !== GrpcTypes.SimulateTransactionRequest_TransactionChecks.DISABLED;
    try {
      const { record } = simulateTransaction(this.#ledger, this.#executor, request.transaction, { doGasSelection: request.doGasSelection ?? false, checks });
      const response: GrpcTypes.SimulateTransactionResponse = {
        transaction: executedTransactionToProto(record, mask.sub('transaction'), this.#ledger),
        commandOutputs: [],
        suggestedGasPrice: this.#ledger.referenceGasPrice(),
      };
      return applyReadMask(GrpcTypes.SimulateTransactionResponse, response, mask);
    } catch (error) {
      if (error instanceof TransactionRejected) throw invalidArgument(error.message);
      throw error;
    }
  }
}
