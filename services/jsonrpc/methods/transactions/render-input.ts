import { bcs } from '@mysten/sui/bcs';
import { fromBase64 } from '@mysten/sui/utils';
import { address, legacyType, u64, type Json } from './legacy-values.js';

/**
 * The legacy `TransactionBlockData` (`transaction.data` of a response, `input` of a dry run) from
 * the transaction's BCS, decoded with the SDK's own BCS types, so every kind and command is read
 * the way the chain wrote it.
 *
 * One thing v2 data cannot give: a node renders pure inputs with their Move type (it resolves the
 * called functions' signatures). We type the pure inputs whose type the commands themselves fix
 * (split amounts: u64, transfer recipients: address) and render the others as their BCS bytes
 * (`valueType: null`, value = array of u8), which is what a node answers when it cannot resolve a type.
 */

type Parsed = ReturnType<typeof bcs.TransactionData.parse>;
type DataV1 = Extract<Parsed, { V1: unknown }>['V1'];
type Kind = DataV1['kind'];
type Programmable = Extract<Kind, { ProgrammableTransaction: unknown }>['ProgrammableTransaction'];
type Argument = Programmable['commands'][number] extends infer C ? C extends { MoveCall: { arguments: (infer A)[] } } ? A : never : never;

function argument(arg: Argument): Json {
  switch (arg.$kind) {
    case 'GasCoin': return 'GasCoin';
    case 'Input': return { Input: arg.Input };
    case 'Result': return { Result: arg.Result };
    case 'NestedResult': return { NestedResult: [arg.NestedResult[0], arg.NestedResult[1]] };
    default: return null;
  }
}

type PureType = 'u64' | 'address';

function pureTypes(ptb: Programmable): Map<number, PureType> {
  const types = new Map<number, PureType>();
  const mark = (arg: Argument, type: PureType) => {
    if (arg.$kind === 'Input') types.set(arg.Input, type);
  };
  for (const command of ptb.commands) {
    if (command.$kind === 'SplitCoins') command.SplitCoins.amounts.forEach((a) => mark(a, 'u64'));
    if (command.$kind === 'TransferObjects') mark(command.TransferObjects.address, 'address');
  }
  return types;
}

function pureValue(bytesBase64: string, type: PureType | undefined): Json {
  const bytes = fromBase64(bytesBase64);
  try {
    if (type === 'u64' && bytes.length === 8) return { type: 'pure', valueType: 'u64', value: bcs.u64().parse(bytes) };
    if (type === 'address' && bytes.length === 32) return { type: 'pure', valueType: 'address', value: bcs.Address.parse(bytes) };
  } catch {
    // Not what the command implies: fall through to the raw bytes.
  }
  return { type: 'pure', valueType: null, value: [...bytes] };
}

function callArg(input: Programmable['inputs'][number], index: number, types: Map<number, PureType>): Json {
  switch (input.$kind) {
    case 'Pure': return pureValue(input.Pure.bytes, types.get(index));
    case 'Object': {
      const object = input.Object;
      if (object.$kind === 'SharedObject') {
        return {
          type: 'object', objectType: 'sharedObject', objectId: address(object.SharedObject.objectId),
          initialSharedVersion: u64(object.SharedObject.initialSharedVersion), mutable: object.SharedObject.mutable,
        };
      }
      const ref = object.$kind === 'ImmOrOwnedObject' ? object.ImmOrOwnedObject : object.Receiving;
      return {
        type: 'object', objectType: object.$kind === 'ImmOrOwnedObject' ? 'immOrOwnedObject' : 'receiving',
        objectId: address(ref.objectId), version: u64(ref.version), digest: ref.digest,
      };
    }
    case 'FundsWithdrawal': {
      const withdrawal = input.FundsWithdrawal;
      return {
        type: 'fundsWithdrawal',
        reservation: { maxAmountU64: u64(withdrawal.reservation.MaxAmountU64) },
        typeArg: { balance: legacyType(String(withdrawal.typeArg.Balance)) },
        withdrawFrom: withdrawal.withdrawFrom.$kind === 'Sponsor' ? 'sponsor' : 'sender',
      };
    }
    default: return null;
  }
}

function command(cmd: Programmable['commands'][number]): Json {
  switch (cmd.$kind) {
    case 'MoveCall': return {
      MoveCall: {
        package: address(cmd.MoveCall.package), module: cmd.MoveCall.module, function: cmd.MoveCall.function,
        type_arguments: cmd.MoveCall.typeArguments.map((t) => legacyType(t)), arguments: cmd.MoveCall.arguments.map(argument),
      },
    };
    case 'TransferObjects': return { TransferObjects: [cmd.TransferObjects.objects.map(argument), argument(cmd.TransferObjects.address)] };
    case 'SplitCoins': return { SplitCoins: [argument(cmd.SplitCoins.coin), cmd.SplitCoins.amounts.map(argument)] };
    case 'MergeCoins': return { MergeCoins: [argument(cmd.MergeCoins.destination), cmd.MergeCoins.sources.map(argument)] };
    case 'Publish': return { Publish: cmd.Publish.dependencies.map((d) => address(d)) };
    case 'Upgrade': return { Upgrade: [cmd.Upgrade.dependencies.map((d) => address(d)), address(cmd.Upgrade.package), argument(cmd.Upgrade.ticket)] };
    case 'MakeMoveVec': return { MakeMoveVec: [cmd.MakeMoveVec.type === null ? null : legacyType(cmd.MakeMoveVec.type), cmd.MakeMoveVec.elements.map(argument)] };
    default: return null;
  }
}

function programmable(kind: 'ProgrammableTransaction' | 'ProgrammableSystemTransaction', ptb: Programmable): Json {
  const types = pureTypes(ptb);
  return { kind, inputs: ptb.inputs.map((input, i) => callArg(input, i, types)), transactions: ptb.commands.map(command) };
}

const END_OF_EPOCH_UNIT = new Set(['AuthenticatorStateCreate', 'RandomnessStateCreate', 'AccumulatorRootCreate', 'CoinRegistryCreate', 'DisplayRegistryCreate', 'AddressAliasStateCreate']);

function transactionKind(kind: Kind): Json {
  switch (kind.$kind) {
    case 'ProgrammableTransaction': return programmable('ProgrammableTransaction', kind.ProgrammableTransaction);
    case 'ProgrammableSystemTransaction': return programmable('ProgrammableSystemTransaction', kind.ProgrammableSystemTransaction);
    case 'ChangeEpoch': {
      const e = kind.ChangeEpoch;
      return {
        kind: 'ChangeEpoch', epoch: u64(e.epoch), storage_charge: u64(e.storageCharge), computation_charge: u64(e.computationCharge),
        storage_rebate: u64(e.storageRebate), epoch_start_timestamp_ms: u64(e.epochStartTimestampMs),
      };
    }
    // Genesis objects are full objects in BCS; the legacy answer lists their ids.
    case 'Genesis': return { kind: 'Genesis', objects: [] };
    case 'ConsensusCommitPrologue': {
      const p = kind.ConsensusCommitPrologue;
      return { kind: 'ConsensusCommitPrologue', epoch: u64(p.epoch), round: u64(p.round), commit_timestamp_ms: u64(p.commitTimestampMs) };
    }
    case 'ConsensusCommitPrologueV2': {
      const p = kind.ConsensusCommitPrologueV2;
      return {
        kind: 'ConsensusCommitPrologueV2', epoch: u64(p.epoch), round: u64(p.round), commit_timestamp_ms: u64(p.commitTimestampMs),
        consensus_commit_digest: p.consensusCommitDigest,
      };
    }
    case 'ConsensusCommitPrologueV3':
    case 'ConsensusCommitPrologueV4': {
      const p = kind.$kind === 'ConsensusCommitPrologueV3' ? kind.ConsensusCommitPrologueV3 : kind.ConsensusCommitPrologueV4;
      return {
        kind: kind.$kind, epoch: u64(p.epoch), round: u64(p.round), commit_timestamp_ms: u64(p.commitTimestampMs),
        consensus_commit_digest: p.consensusCommitDigest, sub_dag_index: p.subDagIndex == null ? null : u64(p.subDagIndex),
        // Cancelled-transaction assignments are not rendered: nothing in v2 data reads them back.
        consensus_determined_version_assignments: { CancelledTransactions: [] },
        ...('additionalStateDigest' in p ? { additional_state_digest: String(p.additionalStateDigest) } : {}),
      };
    }
    case 'AuthenticatorStateUpdate': {
      const p = kind.AuthenticatorStateUpdate;
      return { kind: 'AuthenticatorStateUpdate', epoch: u64(p.epoch), round: u64(p.round), new_active_jwks: [] };
    }
    case 'RandomnessStateUpdate': {
      const p = kind.RandomnessStateUpdate;
      return { kind: 'RandomnessStateUpdate', epoch: u64(p.epoch), randomness_round: u64(p.randomnessRound), random_bytes: [...p.randomBytes] };
    }
    case 'EndOfEpochTransaction':
      return {
        kind: 'EndOfEpochTransaction',
        transactions: kind.EndOfEpochTransaction.filter((t) => END_OF_EPOCH_UNIT.has(t.$kind)).map((t) => t.$kind),
      };
    default: return null;
  }
}

/** Decodes `TransactionData` BCS into the legacy `TransactionBlockData`; null when the bytes are not TransactionData. */
export function renderTransactionData(bytes: Uint8Array): Json {
  let parsed: Parsed;
  try {
    parsed = bcs.TransactionData.parse(bytes);
  } catch {
    return null;
  }
  const data = parsed.V1;
  return {
    messageVersion: 'v1',
    transaction: transactionKind(data.kind),
    sender: address(data.sender),
    gasData: {
      payment: data.gasData.payment.map((ref) => ({ objectId: address(ref.objectId), version: u64(ref.version), digest: ref.digest })),
      owner: address(data.gasData.owner),
      price: u64(data.gasData.price),
      budget: u64(data.gasData.budget),
    },
  };
}
