/**
 * simnet's transaction executor: signature checks, input resolution and gas selection for
 * simulation, execution of the supported programmable-transaction subset, and effects.
 * Shared by the gRPC TransactionExecutionService, GraphQL and the activity producer.
 */
export { Executor, applyOutcome } from './executor.js';
export type { ExecutionOptions, ExecutionOutcome } from './executor.js';
export { TransactionRejected, ExecutionFailed } from './failure.js';
export { resolveTransaction } from './resolve.js';
export type { ResolveOptions } from './resolve.js';
export { verifyUserSignature } from './signatures.js';
export type { VerifiedSignature } from './signatures.js';
export { ALLOWANCE_ABORTS } from './move-calls.js';
export { SignatureRejected, submitTransaction, simulateTransaction } from './submit.js';
export type { SimulationOptions } from './simulation-options.js';
