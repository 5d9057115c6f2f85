import { GrpcTypes } from '@mysten/sui/grpc';
import { toBase64 } from '@mysten/sui/utils';
import { timestampMs } from '../../../upstream/index.js';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams, u64Param } from '../../params.js';
import { pageLimit } from './paging.js';
import { read } from './upstream-reads.js';

/** Checkpoints (gRPC LedgerService.GetCheckpoint). */

const CHECKPOINT_MASK = ['sequence_number', 'digest', 'summary', 'signature', 'contents.transactions.transaction'];

function commitment(entry: GrpcTypes.CheckpointCommitment): unknown {
  return entry.kind === GrpcTypes.CheckpointCommitment_CheckpointCommitmentKind.ECMH_LIVE_OBJECT_SET
    ? { ECMHLiveObjectSetDigest: { digest: entry.digest } }
    : { CheckpointArtifactsDigest: entry.digest };
}

function gas(summary: GrpcTypes.GasCostSummary | undefined) {
  return {
    computationCost: String(summary?.computationCost ?? 0n),
    storageCost: String(summary?.storageCost ?? 0n),
    storageRebate: String(summary?.storageRebate ?? 0n),
    nonRefundableStorageFee: String(summary?.nonRefundableStorageFee ?? 0n),
  };
}

/** A v2 checkpoint in the legacy `Checkpoint` shape. */
export function legacyCheckpoint(checkpoint: GrpcTypes.Checkpoint): Record<string, unknown> {
  const summary = checkpoint.summary;
  const end = summary?.endOfEpochData;
  return {
    epoch: String(summary?.epoch ?? 0n),
    sequenceNumber: String(checkpoint.sequenceNumber ?? summary?.sequenceNumber ?? 0n),
    digest: checkpoint.digest ?? summary?.digest ?? '',
    networkTotalTransactions: String(summary?.totalNetworkTransactions ?? 0n),
    ...(summary?.previousDigest ? { previousDigest: summary.previousDigest } : {}),
    epochRollingGasCostSummary: gas(summary?.epochRollingGasCostSummary),
    timestampMs: String(timestampMs(summary?.timestamp) ?? 0n),
    ...(end ? {
      endOfEpochData: {
        nextEpochCommittee: end.nextEpochCommittee.map((member) => [toBase64(member.publicKey ?? new Uint8Array()), String(member.weight ?? 0n)]),
        nextEpochProtocolVersion: String(end.nextEpochProtocolVersion ?? 0n),
        epochCommitments: end.epochCommitments.map(commitment),
      },
    } : {}),
    transactions: (checkpoint.contents?.transactions ?? []).map((entry) => entry.transaction ?? ''),
    checkpointCommitments: (summary?.commitments ?? []).map(commitment),
    validatorSignature: toBase64(checkpoint.signature?.signature ?? new Uint8Array()),
  };
}

async function checkpointAt(context: JsonRpcContext, id: { sequenceNumber: bigint } | { digest: string }) {
  const checkpointId = 'digest' in id
    ? { oneofKind: 'digest' as const, digest: id.digest }
    : { oneofKind: 'sequenceNumber' as const, sequenceNumber: id.sequenceNumber };
  const response = await read(context, 'GetCheckpoint', (rpc) => context.upstream.grpc.ledgerService.getCheckpoint({ checkpointId, readMask: { paths: CHECKPOINT_MASK } }, rpc));
  if (!response.checkpoint) throw invalidParams('checkpoint not found', { code: 'NOT_FOUND' });
  return response.checkpoint;
}

export const getCheckpoint: JsonRpcMethod = {
  name: 'sui_getCheckpoint',
  translatesTo: 'gRPC LedgerService.GetCheckpoint (by sequence number or digest)',
  async handle(params, context) {
    const id = String(params.id);
    const checkpoint = await checkpointAt(context, /^[0-9]+$/.test(id) ? { sequenceNumber: u64Param(id, 'id') } : { digest: id });
    return legacyCheckpoint(checkpoint);
  },
};

interface CheckpointsCursor {
  /** The sequence number of the last checkpoint served. */
  last: string;
  descending: boolean;
}

export const getCheckpoints: JsonRpcMethod = {
  name: 'sui_getCheckpoints',
  translatesTo: 'gRPC LedgerService.GetServiceInfo (height) + GetCheckpoint per checkpoint of the page',
  async handle(params, context) {
    const method = 'sui_getCheckpoints';
    const descending = params.descending_order === true;
    const limit = pageLimit(params.limit);
    const state = typeof params.cursor === 'string' ? context.cursors.decode<CheckpointsCursor>(method, params.cursor) : undefined;
    if (state && state.descending !== descending) throw invalidParams('the cursor belongs to another query', { code: 'INVALID_CURSOR' });
    const info = await read(context, 'GetServiceInfo', (rpc) => context.upstream.grpc.ledgerService.getServiceInfo({}, rpc));
    const height = info.checkpointHeight ?? 0n;
    const lowest = info.lowestAvailableCheckpoint ?? 0n;
    const sequence: bigint[] = [];
    let next = state ? BigInt(state.last) + (descending ? -1n : 1n) : (descending ? height : lowest);
    while (sequence.length < limit && next >= lowest && next <= height) {
      sequence.push(next);
      next += descending ? -1n : 1n;
    }
    const data = await Promise.all(sequence.map(async (sequenceNumber) => legacyCheckpoint(await checkpointAt(context, { sequenceNumber }))));
    const more = next >= lowest && next <= height;
    const last = sequence.at(-1);
    return {
      data,
      nextCursor: more && last !== undefined ? context.cursors.encode(method, { last: last.toString(), descending }) : null,
      hasNextPage: more,
    };
  },
};
