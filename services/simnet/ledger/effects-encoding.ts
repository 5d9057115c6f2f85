import { bcs } from '@mysten/sui/bcs';
import { ownerToBcs } from './object-encoding.js';
import { suiDigest } from './hashing.js';
import type { EffectsRecord, EventRecord, ExecutionFailure } from './types.js';

/** Sui's `Event` (sui-types event.rs): what `TransactionEvents` and `eventBcs` carry. */
export const EventBcs = bcs.struct('Event', {
  packageId: bcs.Address,
  transactionModule: bcs.string(),
  sender: bcs.Address,
  type: bcs.StructTag,
  contents: bcs.byteVector(),
});
const TransactionEventsBcs = bcs.struct('TransactionEvents', { data: bcs.vector(EventBcs) });

/** blake2b-256 of `TransactionEvents::` ‖ BCS(events), or undefined for no events (as Sui). */
export function eventsDigest(events: readonly EventRecord[], parseType: (type: string) => unknown): string | undefined {
  if (events.length === 0) return undefined;
  const bytes = TransactionEventsBcs.serialize({
    data: events.map((event) => ({
      packageId: event.packageId,
      transactionModule: event.module,
      sender: event.sender,
      type: parseType(event.type) as Parameters<typeof bcs.StructTag.serialize>[0],
      contents: event.contents,
    })),
  }).toBytes();
  return suiDigest('TransactionEvents', bytes);
}

function failureToBcs(failure: ExecutionFailure) {
  switch (failure.kind) {
    case 'moveAbort': {
      const abort = failure.abort!;
      return {
        MoveAbort: [
          { module: { address: abort.packageId, name: abort.module }, function: 0, instruction: 0, functionName: abort.functionName },
          abort.code,
        ],
      };
    }
    case 'insufficientGas':
      return { InsufficientGas: true };
    case 'insufficientCoinBalance':
      return { InsufficientCoinBalance: true };
    case 'invalidGasObject':
      return { InvalidGasObject: true };
    case 'commandArgumentError':
      return { CommandArgumentError: { argIdx: failure.argument ?? 0, kind: { TypeMismatch: true } } };
    case 'featureNotYetSupported':
      return { FeatureNotYetSupported: true };
    case 'functionNotFound':
      return { FunctionNotFound: true };
    case 'insufficientFundsForWithdraw':
      return { InsufficientBalanceForWithdraw: true };
  }
}

/** Everything of the effects but their encoding, which `buildEffects` computes. */
export type EffectsInput = Omit<EffectsRecord, 'bcs' | 'digest'>;

/** Builds `TransactionEffects::V2`, its BCS and digest; changed objects are sorted by id as Sui does. */
export function buildEffects(input: EffectsInput): EffectsRecord {
  const changedObjects = [...input.changedObjects].sort((a, b) => (a.objectId < b.objectId ? -1 : a.objectId > b.objectId ? 1 : 0));
  const gasIndex = input.gasObjectId ? changedObjects.findIndex((change) => change.objectId === input.gasObjectId) : -1;
  const effectsBcs = bcs.TransactionEffects.serialize({
    V2: {
      status: input.status.success ? { Success: true } : { Failure: { error: failureToBcs(input.status.failure), command: input.status.failure.command ?? null } },
      executedEpoch: input.epoch,
      gasUsed: input.gasUsed,
      transactionDigest: input.transactionDigest,
      gasObjectIndex: gasIndex >= 0 ? gasIndex : null,
      eventsDigest: input.eventsDigest ?? null,
      dependencies: [...input.dependencies],
      lamportVersion: input.lamportVersion,
      changedObjects: changedObjects.map((change) => [
        change.objectId,
        {
          inputState: change.input ? { Exist: [[change.input.version, change.input.digest], ownerToBcs(change.input.owner)] } : { NotExist: true },
          outputState: !change.output
            ? { NotExist: true }
            : change.isPackage
              ? { PackageWrite: [change.output.version, change.output.digest] }
              : { ObjectWrite: [change.output.digest, ownerToBcs(change.output.owner)] },
          idOperation: change.idOperation === 'created' ? { Created: true } : change.idOperation === 'deleted' ? { Deleted: true } : { None: true },
        },
      ]),
      unchangedConsensusObjects: [],
      auxDataDigest: null,
    },
  } as Parameters<typeof bcs.TransactionEffects.serialize>[0]).toBytes();
  return {
    ...input,
    changedObjects,
    bcs: effectsBcs,
    digest: suiDigest('TransactionEffects', effectsBcs),
  };
}
