import { GrpcTypes } from '@mysten/sui/grpc';
import type { Ledger } from '../ledger/index.js';
import type { Executor} from '../execution/executor.js';
import { applyOutcome } from '../execution/executor.js';
import { TransactionRejected } from '../execution/failure.js';
import { resolveTransaction } from '../execution/resolve.js';
import { verifyUserSignature } from '../execution/signatures.js';
import type { VerifiedSignature } from '../execution/signatures.js';
import { executedTransactionToProto } from './convert-transactions.js';
import { invalidArgument } from './errors.js';
import { ReadMask, applyReadMask } from './read-mask.js';
import { bcs } from '@mysten/sui/bcs';
import { suiDigest } from '../ledger/hashing.js';
import { normalizeSuiAddress } from '@mysten/sui/utils';

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
    let data;
    try {
      data = bcs.TransactionData.parse(txBcs).V1;
    } catch {
      throw invalidArgument('transaction.bcs is not a valid TransactionData');
    }
    if (request.signatures.length === 0) throw invalidArgument('at least one signature is required');
    const verified: VerifiedSignature[] = [];
    for (const signature of request.signatures) {
      const bytes = signature.bcs?.value;
      if (!bytes) throw invalidArgument('signature.bcs is required');
      try {
        verified.push(await verifyUserSignature({ kind: 'transaction', bytes: txBcs }, bytes, this.#ledger.currentEpoch().epoch));
      } catch (error) {
        throw invalidArgument(`invalid signature: ${(error as Error).message}`);
      }
    }
    const signers = new Set(verified.map((signature) => signature.address));
    for (const required of new Set([normalizeSuiAddress(data.sender), normalizeSuiAddress(data.gasData.owner)])) {
      if (!signers.has(required)) throw invalidArgument(`missing signature from ${required}`);
    }
    // Re-submitting an executed transaction returns its effects, as on a real node.
    const existing = this.#ledger.getTransaction(suiDigest('TransactionData', txBcs));
    if (existing) return { transaction: applyReadMask(GrpcTypes.ExecutedTransaction, executedTransactionToProto(existing, mask, this.#ledger), mask) };
    try {
      const outcome = this.#executor.execute(txBcs, { checks: true, signatures: verified.map((signature) => signature.record) });
      applyOutcome(this.#ledger, outcome);
      return { transaction: applyReadMask(GrpcTypes.ExecutedTransaction, executedTransactionToProto(outcome.record, mask, this.#ledger), mask) };
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
      const txBcs = resolveTransaction(this.#ledger, this.#executor, request.transaction, { doGasSelection: request.doGasSelection ?? false, checks });
      const data = bcs.TransactionData.parse(txBcs).V1;
      const outcome = this.#executor.execute(txBcs, { checks, mockGas: data.gasData.payment.length === 0 && !checks });
      const response: GrpcTypes.SimulateTransactionResponse = {
        transaction: executedTransactionToProto(outcome.record, mask.sub('transaction'), this.#ledger),
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
