import type { ExecutionFailure } from '../ledger/index.js';

/** A Move-level failure: the transaction is executed, fails, and only gas is charged. */
export class ExecutionFailed extends Error {
  constructor(readonly failure: ExecutionFailure) {
    super(failure.description);
  }
}

/**
 * The transaction is rejected before execution (bad signature, stale object, insufficient gas
 * balance...): no effects, the RPC call fails with INVALID_ARGUMENT as on a real node.
 */
export class TransactionRejected extends Error {}

export function abort(command: number, packageId: string, module: string, functionName: string, code: bigint, description: string): ExecutionFailed {
  return new ExecutionFailed({ kind: 'moveAbort', command, description, abort: { packageId, module, functionName, code } });
}

export function argumentError(command: number, argument: number, description: string): ExecutionFailed {
  return new ExecutionFailed({ kind: 'commandArgumentError', command, argument, description });
}
