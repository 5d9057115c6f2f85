import { GrpcTypes } from '@mysten/sui/grpc';
import { fromBase64 } from '@mysten/sui/utils';
import { Executor, TransactionRejected, submitTransaction, simulateTransaction } from '../execution/index.js';
import type { Ledger } from '../ledger/index.js';
import type { RequestContext } from './context.js';
import { badUserInput } from './errors.js';
import { EffectsNode } from './nodes/effects.js';
import type { TransactionRunner } from './transaction-runner.js';

/** Rejections before execution (signatures, stale objects, gas, bad inputs) are the caller's fault. */
async function rejected<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TransactionRejected) throw badUserInput(error.message);
    throw error;
  }
}

/**
 * `executeTransaction` / `simulateTransaction` on simnet's shared submit and simulate path (the
 * one the gRPC TransactionExecutionService uses), answered in GraphQL's shapes.
 */
export function createLedgerRunner(ledger: Ledger, executor: Executor = new Executor(ledger)): TransactionRunner {
  return {
    async execute(ctx: RequestContext, args: { transactionDataBcs: string; signatures: string[] }) {
      const record = await rejected(() => submitTransaction(ledger, executor, fromBase64(args.transactionDataBcs), args.signatures.map(fromBase64)));
      return { __typename: 'ExecutionResult', effects: new EffectsNode(ctx, record) };
    },

    async simulate(ctx: RequestContext, args: { transaction: unknown; checksEnabled?: boolean | null; doGasSelection?: boolean | null }) {
      let proto: GrpcTypes.Transaction;
      try {
        proto = GrpcTypes.Transaction.fromJson(args.transaction as Parameters<typeof GrpcTypes.Transaction.fromJson>[0]);
      } catch (error) {
        throw badUserInput(`Invalid transaction: ${error instanceof Error ? error.message : String(error)}`);
      }
      const options = { checks: args.checksEnabled ?? true, doGasSelection: args.doGasSelection ?? false };
      const { record } = await rejected(() => simulateTransaction(ledger, executor, proto, options));
      // Command results are not computed by simnet's executor: `outputs` stays null.
      return { __typename: 'SimulationResult', effects: new EffectsNode(ctx, record), outputs: null };
    },
  };
}
