import type { RequestContext } from './context.js';

/**
 * How GraphQL reaches the ledger's execution: `Mutation.executeTransaction` and
 * `Query.simulateTransaction`. Both answer the schema's `ExecutionResult` / `SimulationResult`
 * shapes. Absent methods make those fields answer `FEATURE_UNAVAILABLE`.
 */
export interface TransactionRunner {
  execute?(ctx: RequestContext, args: { transactionDataBcs: string; signatures: string[] }): Promise<object> | object;
  simulate?(ctx: RequestContext, args: { transaction: unknown; checksEnabled?: boolean | null; doGasSelection?: boolean | null }): Promise<object> | object;
}
