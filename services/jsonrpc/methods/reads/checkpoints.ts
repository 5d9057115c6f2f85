import { GrpcTypes } from '@mysten/sui/grpc';
import { toBase64 } from '@mysten/sui/utils';
import { timestampMs } from '../../../upstream/index.js';
import type { JsonRpcContext, JsonRpcMethod } from '../../method.js';
import { invalidParams, u64Param } from '../../params.js';
import { MAX_CHECKPOINT_PAGE_LIMIT, validatedLimit } from './paging.js';
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

/** The legacy `Checkpoint` (its other fields are rendered JSON). */
interface LegacyCheckpoint {
  sequenceNumber: string;
  digest: string;
  [field: string]: unknown;
}

/** A v2 checkpoint in the legacy `Checkpoint` shape. */
export function legacyCheckpoint(checkpoint: GrpcTypes.Checkpoint): LegacyCheckpoint {
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

/** Kept under its sequence number and its digest: either finds it next time. */
function keep(context: JsonRpcContext, checkpoint: LegacyCheckpoint): void {
  context.cache.set('checkpoint', checkpoint.sequenceNumber, checkpoint);
  context.cache.set('checkpoint', `digest:${checkpoint.digest}`, checkpoint);
}

async function checkpointAt(context: JsonRpcContext, id: { sequenceNumber: bigint } | { digest: string }): Promise<LegacyCheckpoint> {
  const key = 'digest' in id ? `digest:${id.digest}` : id.sequenceNumber.toString();
  const kept = context.cache.get<LegacyCheckpoint>('checkpoint', key);
  if (kept) return kept;
  const checkpointId = 'digest' in id
    ? { oneofKind: 'digest' as const, digest: id.digest }
    : { oneofKind: 'sequenceNumber' as const, sequenceNumber: id.sequenceNumber };
  const response = await read(context, 'GetCheckpoint', (rpc) => context.upstream.grpc.ledgerService.getCheckpoint({ checkpointId, readMask: { paths: CHECKPOINT_MASK } }, rpc));
  if (!response.checkpoint) throw invalidParams('checkpoint not found', { code: 'NOT_FOUND' });
  const checkpoint = legacyCheckpoint(response.checkpoint);
  keep(context, checkpoint);
  return checkpoint;
}

export const getCheckpoint: JsonRpcMethod = {
  name: 'sui_getCheckpoint',
  translatesTo: 'gRPC LedgerService.GetCheckpoint (by sequence number or digest; cached)',
  async handle(params, context) {
    const id = String(params.id);
    return checkpointAt(context, /^[0-9]+$/.test(id) ? { sequenceNumber: u64Param(id, 'id') } : { digest: id });
  },
};

interface CheckpointsCursor {
  /** The sequence number of the last checkpoint served. */
  last: string;
  descending: boolean;
}

/** `count` consecutive sequence numbers from `first` in the page's order, none below 0. */
function sequenceFrom(first: bigint, count: number, descending: boolean): bigint[] {
  const sequence: bigint[] = [];
  for (let next = first; sequence.length < count && next >= 0n; next += descending ? -1n : 1n) sequence.push(next);
  return sequence;
}

/** The page from the cache, when every one of its checkpoints is there. */
function keptRun(context: JsonRpcContext, sequence: readonly bigint[]): LegacyCheckpoint[] | undefined {
  const run: LegacyCheckpoint[] = [];
  for (const sequenceNumber of sequence) {
    const kept = context.cache.get<LegacyCheckpoint>('checkpoint', sequenceNumber.toString());
    if (!kept) return undefined;
    run.push(kept);
  }
  return run;
}

const STOPPED_EARLY = new Set([GrpcTypes.QueryEndReason.ITEM_LIMIT, GrpcTypes.QueryEndReason.SCAN_LIMIT]);

/**
 * Up to `count` checkpoints from `first` (from the tip, descending, when `first` is unknown) in one
 * ListCheckpoints call over exactly that range, each kept in the cache. `stoppedEarly`: the node
 * ended the stream before the range (it caps the item limit), so more may follow.
 */
async function listRun(context: JsonRpcContext, first: bigint | undefined, count: number, descending: boolean) {
  const range = first === undefined ? {}
    : descending ? { startCheckpoint: first >= BigInt(count) ? first - BigInt(count) + 1n : 0n, endCheckpoint: first + 1n }
      : { startCheckpoint: first, endCheckpoint: first + BigInt(count) };
  const request: GrpcTypes.ListCheckpointsRequest = {
    readMask: { paths: CHECKPOINT_MASK },
    ...range,
    options: { limit: count, ordering: descending ? GrpcTypes.Ordering.DESCENDING : GrpcTypes.Ordering.ASCENDING },
  };
  return context.upstream.call('ListCheckpoints', async (rpc) => {
    const run: LegacyCheckpoint[] = [];
    let end: GrpcTypes.QueryEndReason | undefined;
    for await (const frame of context.upstream.grpc.ledgerService.listCheckpoints(request, rpc).responses) {
      if (frame.checkpoint && run.length < count) run.push(legacyCheckpoint(frame.checkpoint));
      if (frame.end?.reason !== undefined) end = frame.end.reason;
    }
    run.forEach((checkpoint) => keep(context, checkpoint));
    return { run, stoppedEarly: end !== undefined && STOPPED_EARLY.has(end) && run.length < count };
  }, { idempotent: true });
}

export const getCheckpoints: JsonRpcMethod = {
  name: 'sui_getCheckpoints',
  translatesTo: 'gRPC LedgerService.ListCheckpoints (one range of limit + 1 checkpoints; the first ascending page asks GetServiceInfo for the lowest available one); a page whose checkpoints are all cached costs no call',
  async handle(params, context) {
    const method = 'sui_getCheckpoints';
    const descending = params.descending_order === true;
    const limit = validatedLimit(params.limit, MAX_CHECKPOINT_PAGE_LIMIT);
    const state = context.cursors.decodeParam<CheckpointsCursor>(method, params.cursor);
    if (state && state.descending !== descending) throw invalidParams('the cursor belongs to another query', { code: 'INVALID_CURSOR' });
    let first: bigint | undefined;
    if (state) first = BigInt(state.last) + (descending ? -1n : 1n);
    else if (!descending) {
      const info = await read(context, 'GetServiceInfo', (rpc) => context.upstream.grpc.ledgerService.getServiceInfo({}, rpc));
      first = info.lowestAvailableCheckpoint ?? 0n;
    }
    // One more than the page: whether it exists says if there is a next page.
    const wanted = first === undefined ? undefined : sequenceFrom(first, limit + 1, descending);
    let run: LegacyCheckpoint[];
    let stoppedEarly = false;
    if (wanted?.length === 0) run = [];
    else {
      const kept = wanted && keptRun(context, wanted);
      ({ run, stoppedEarly } = kept ? { run: kept, stoppedEarly: false } : await listRun(context, first, limit + 1, descending));
    }
    const data = run.slice(0, limit);
    const more = run.length > limit || (stoppedEarly && data.length > 0);
    const last = data.at(-1);
    return {
      data,
      nextCursor: more && last !== undefined ? context.cursors.encode(method, { last: last.sequenceNumber, descending }) : null,
      hasNextPage: more,
    };
  },
};
