import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { Ledger, TransactionRecord } from '../ledger/index.js';
import { suiDigest } from '../ledger/hashing.js';
import type { Executor } from './executor.js';
import { applyOutcome } from './outcome.js';
import { TransactionRejected } from './failure.js';
import { simulatesWithMockGas } from './mock-gas.js';
import { resolveTransaction } from './resolve.js';
import { verifyUserSignature } from './signatures.js';
import type { VerifiedSignature } from './signatures.js';
import type { SimulationOptions } from './simulation-options.js';

/** A signature that does not verify, or a required signer that did not sign. */
export class SignatureRejected extends TransactionRejected {}

/**
 * Verifies, executes and records a signed transaction, the way every API submits: each
 * signature must verify, the sender and the gas owner must have signed, and an already executed
 * digest answers its existing record. Throws {@link TransactionRejected} (or
 * {@link SignatureRejected}) for anything a node would refuse before execution.
 */
export async function submitTransaction(ledger: Ledger, executor: Executor, txBcs: Uint8Array, signatures: readonly Uint8Array[]): Promise<TransactionRecord> {
  let data: ReturnType<typeof bcs.TransactionData.parse>['V1'];
  try {
    data = bcs.TransactionData.parse(txBcs).V1;
  } catch {
    throw new TransactionRejected('transaction bytes are not a valid TransactionData');
  }
  if (signatures.length === 0) throw new SignatureRejected('at least one signature is required');
  const verified: VerifiedSignature[] = [];
  for (const [index, signature] of signatures.entries()) {
    try {
      verified.push(await verifyUserSignature({ kind: 'transaction', bytes: txBcs }, signature, ledger.currentEpoch().epoch));
    } catch (error) {
      throw new SignatureRejected(`invalid signature ${index}: ${(error as Error).message}`);
    }
  }
  const signers = new Set(verified.map((signature) => signature.address));
  for (const required of new Set([normalizeSuiAddress(data.sender), normalizeSuiAddress(data.gasData.owner)])) {
    if (!signers.has(required)) throw new SignatureRejected(`missing signature from ${required}`);
  }
  const existing = ledger.getTransaction(suiDigest('TransactionData', txBcs));
  if (existing) return existing;
  const outcome = executor.execute(txBcs, { checks: true, signatures: verified.map((signature) => signature.record) });
  applyOutcome(ledger, outcome);
  return outcome.record;
}

/**
 * Resolves (inputs, gas) and executes a transaction without recording it: what
 * SimulateTransaction answers, and what the SDK's `Transaction.build` relies on.
 */
export function simulateTransaction(ledger: Ledger, executor: Executor, transaction: GrpcTypes.Transaction, options: SimulationOptions): { txBcs: Uint8Array; record: TransactionRecord } {
  const txBcs = resolveTransaction(ledger, executor, transaction, options);
  const data = bcs.TransactionData.parse(txBcs).V1;
  const outcome = executor.execute(txBcs, { checks: options.checks, mockGas: simulatesWithMockGas(ledger, data, options) });
  return { txBcs, record: outcome.record };
}
