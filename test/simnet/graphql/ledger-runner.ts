import { bcs } from '@mysten/sui/bcs';
import { GrpcTypes } from '@mysten/sui/grpc';
import { fromBase64, normalizeSuiAddress } from '@mysten/sui/utils';
import { Executor, applyOutcome } from '../execution/executor.js';
import { TransactionRejected } from '../execution/failure.js';
import { resolveTransaction } from '../execution/resolve.js';
import { verifyUserSignature } from '../execution/signatures.js';
import type { VerifiedSignature } from '../execution/signatures.js';
import type { Ledger, TransactionRecord } from '../ledger/index.js';
import type { RequestContext } from './context.js';
import { badUserInput } from './errors.js';
import { EffectsNode } from './nodes/effects.js';
import type { TransactionRunner } from './transaction-runner.js';

/** Rejections before execution (stale objects, gas, bad inputs) are the caller's fault. */
function rejected<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof TransactionRejected) throw badUserInput(error.message);
    throw error;
  }
}

function parseTransactionData(bytes: Uint8Array) {
  try {
    return bcs.TransactionData.parse(bytes).V1;
  } catch (error) {
    throw badUserInput(`Invalid BCS encoding in transaction data: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * `executeTransaction` / `simulateTransaction` on simnet's executor: the same checks, resolution
 * and effects the gRPC TransactionExecutionService uses, answered in GraphQL's shapes.
 */
export function createLedgerRunner(ledger: Ledger, executor: Executor = new Executor(ledger)): TransactionRunner {
  return {
    async execute(ctx: RequestContext, args: { transactionDataBcs: string; signatures: string[] }) {
      const txBcs = fromBase64(args.transactionDataBcs);
      const data = parseTransactionData(txBcs);
      if (args.signatures.length === 0) throw badUserInput('At least one signature is required');
      const verified: VerifiedSignature[] = [];
      for (const [index, signature] of args.signatures.entries()) {
        try {
          verified.push(await verifyUserSignature({ kind: 'transaction', bytes: txBcs }, fromBase64(signature), ledger.currentEpoch().epoch));
        } catch (error) {
          throw badUserInput(`Invalid signature format in signature ${index}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const signers = new Set(verified.map((signature) => signature.address));
      for (const required of new Set([normalizeSuiAddress(data.sender), normalizeSuiAddress(data.gasData.owner)])) {
        if (!signers.has(required)) throw badUserInput(`Missing signature from ${required}`);
      }
      const outcome = rejected(() => executor.execute(txBcs, { checks: true, signatures: verified.map((signature) => signature.record) }));
      let record: TransactionRecord | undefined = ledger.getTransaction(outcome.record.digest);
      if (!record) {
        applyOutcome(ledger, outcome);
        record = outcome.record;
      }
      return { __typename: 'ExecutionResult', effects: new EffectsNode(ctx, record) };
    },

    simulate(ctx: RequestContext, args: { transaction: unknown; checksEnabled?: boolean | null; doGasSelection?: boolean | null }) {
      let proto: GrpcTypes.Transaction;
      try {
        proto = GrpcTypes.Transaction.fromJson(args.transaction as Parameters<typeof GrpcTypes.Transaction.fromJson>[0]);
      } catch (error) {
        throw badUserInput(`Invalid transaction: ${error instanceof Error ? error.message : String(error)}`);
      }
      const checks = args.checksEnabled ?? true;
      const txBcs = rejected(() => resolveTransaction(ledger, executor, proto, { doGasSelection: args.doGasSelection ?? false, checks }));
      const payment = parseTransactionData(txBcs).gasData.payment;
      const outcome = rejected(() => executor.execute(txBcs, { checks, mockGas: payment.length === 0 && !checks }));
      // Command results are not computed by simnet's executor: `outputs` stays null.
      return { __typename: 'SimulationResult', effects: new EffectsNode(ctx, outcome.record), outputs: null };
    },
  };
}
