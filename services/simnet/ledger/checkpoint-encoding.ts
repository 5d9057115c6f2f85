import { bcs } from '@mysten/sui/bcs';
import { suiDigest } from './hashing.js';
import type { GasCostSummaryRecord } from './types.js';

// Layouts follow sui-types' messages_checkpoint.rs (CheckpointSummary, CheckpointContents V1).
const Digest = bcs.ObjectDigest;

const GasCostSummary = bcs.struct('GasCostSummary', {
  computationCost: bcs.u64(),
  storageCost: bcs.u64(),
  storageRebate: bcs.u64(),
  nonRefundableStorageFee: bcs.u64(),
});

const CheckpointCommitment = bcs.enum('CheckpointCommitment', {
  ECMHLiveObjectSetDigest: Digest,
  CheckpointArtifactsDigest: Digest,
});

export const CheckpointSummaryBcs = bcs.struct('CheckpointSummary', {
  epoch: bcs.u64(),
  sequenceNumber: bcs.u64(),
  networkTotalTransactions: bcs.u64(),
  contentDigest: Digest,
  previousDigest: bcs.option(Digest),
  epochRollingGasCostSummary: GasCostSummary,
  timestampMs: bcs.u64(),
  checkpointCommitments: bcs.vector(CheckpointCommitment),
  // EndOfEpochData is never produced: simnet does not change epochs while running.
  endOfEpochData: bcs.option(bcs.u8()),
  versionSpecificData: bcs.byteVector(),
});

const ExecutionDigests = bcs.struct('ExecutionDigests', { transaction: Digest, effects: Digest });

export const CheckpointContentsBcs = bcs.enum('CheckpointContents', {
  V1: bcs.struct('CheckpointContentsV1', {
    transactions: bcs.vector(ExecutionDigests),
    userSignatures: bcs.vector(bcs.vector(bcs.byteVector())),
  }),
});

export interface CheckpointEncodingInput {
  readonly epoch: bigint;
  readonly sequenceNumber: bigint;
  readonly networkTotalTransactions: bigint;
  readonly previousDigest?: string;
  readonly timestampMs: bigint;
  readonly rollingGas: GasCostSummaryRecord;
  readonly transactions: readonly { digest: string; effectsDigest: string; signatures: readonly Uint8Array[] }[];
}

export function encodeCheckpoint(input: CheckpointEncodingInput) {
  const contentsBcs = CheckpointContentsBcs.serialize({
    V1: {
      transactions: input.transactions.map((tx) => ({ transaction: tx.digest, effects: tx.effectsDigest })),
      userSignatures: input.transactions.map((tx) => [...tx.signatures]),
    },
  }).toBytes();
  const contentDigest = suiDigest('CheckpointContents', contentsBcs);
  const summaryBcs = CheckpointSummaryBcs.serialize({
    epoch: input.epoch,
    sequenceNumber: input.sequenceNumber,
    networkTotalTransactions: input.networkTotalTransactions,
    contentDigest,
    previousDigest: input.previousDigest ?? null,
    epochRollingGasCostSummary: input.rollingGas,
    timestampMs: input.timestampMs,
    checkpointCommitments: [],
    endOfEpochData: null,
    versionSpecificData: new Uint8Array(),
  }).toBytes();
  return { contentsBcs, contentDigest, summaryBcs, digest: suiDigest('CheckpointSummary', summaryBcs) };
}
