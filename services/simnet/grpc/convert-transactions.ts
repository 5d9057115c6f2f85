import { bcs } from '@mysten/sui/bcs';
import { GrpcTypes } from '@mysten/sui/grpc';
import type { EffectsRecord, EventRecord, ExecutionFailure, ObjectChangeRecord, SignatureRecord, TransactionRecord } from '../ledger/index.js';
import type { LedgerReader } from '../ledger/index.js';
import { ownerToProto, objectToProto } from './convert-objects.js';
import { toProtoValue, toTimestamp } from './proto-values.js';
import type { ReadMask } from './read-mask.js';

type ParsedTransactionData = ReturnType<typeof bcs.TransactionData.parse>;
type ParsedArgument = ReturnType<typeof bcs.Argument.parse>;
type ParsedCallArg = ReturnType<typeof bcs.CallArg.parse>;
type ParsedCommand = ReturnType<typeof bcs.Command.parse>;

const { Argument_ArgumentKind: ArgKind, Input_InputKind: InputKind } = GrpcTypes;

function argumentToProto(argument: ParsedArgument): GrpcTypes.Argument {
  switch (argument.$kind) {
    case 'GasCoin':
      return { kind: ArgKind.GAS };
    case 'Input':
      return { kind: ArgKind.INPUT, input: argument.Input };
    case 'Result':
      return { kind: ArgKind.RESULT, result: argument.Result };
    case 'NestedResult':
      return { kind: ArgKind.RESULT, result: argument.NestedResult[0], subresult: argument.NestedResult[1] };
  }
}

function inputToProto(input: ParsedCallArg): GrpcTypes.Input {
  switch (input.$kind) {
    case 'Pure':
      return { kind: InputKind.PURE, pure: Buffer.from(input.Pure.bytes, 'base64') };
    case 'Object': {
      const object = input.Object;
      if (object.$kind === 'ImmOrOwnedObject') {
        const ref = object.ImmOrOwnedObject;
        return { kind: InputKind.IMMUTABLE_OR_OWNED, objectId: ref.objectId, version: BigInt(ref.version), digest: ref.digest };
      }
      if (object.$kind === 'SharedObject') {
        const ref = object.SharedObject;
        return {
          kind: InputKind.SHARED,
          objectId: ref.objectId,
          version: BigInt(ref.initialSharedVersion),
          mutable: ref.mutable,
          mutability: ref.mutable ? GrpcTypes.Input_Mutability.MUTABLE : GrpcTypes.Input_Mutability.IMMUTABLE,
        };
      }
      const ref = object.Receiving;
      return { kind: InputKind.RECEIVING, objectId: ref.objectId, version: BigInt(ref.version), digest: ref.digest };
    }
    case 'FundsWithdrawal': {
      const withdrawal = input.FundsWithdrawal;
      const from = withdrawal.withdrawFrom;
      return {
        kind: InputKind.FUNDS_WITHDRAWAL,
        fundsWithdrawal: {
          amount: BigInt(withdrawal.reservation.MaxAmountU64),
          coinType: withdrawal.typeArg.Balance,
          source:
            from.$kind === 'Sender' ? GrpcTypes.FundsWithdrawal_Source.SENDER : from.$kind === 'Sponsor' ? GrpcTypes.FundsWithdrawal_Source.SPONSOR : GrpcTypes.FundsWithdrawal_Source.SENDER_ALLOWANCE,
          funder: from.$kind === 'SenderAllowance' ? from.SenderAllowance.funder : undefined,
          allowance: from.$kind === 'SenderAllowance' ? from.SenderAllowance.allowance : undefined,
        },
      };
    }
  }
}

function commandToProto(command: ParsedCommand): GrpcTypes.Command {
  switch (command.$kind) {
    case 'MoveCall': {
      const call = command.MoveCall;
      return { command: { oneofKind: 'moveCall', moveCall: { package: call.package, module: call.module, function: call.function, typeArguments: call.typeArguments, arguments: call.arguments.map(argumentToProto) } } };
    }
    case 'TransferObjects':
      return { command: { oneofKind: 'transferObjects', transferObjects: { objects: command.TransferObjects.objects.map(argumentToProto), address: argumentToProto(command.TransferObjects.address) } } };
    case 'SplitCoins':
      return { command: { oneofKind: 'splitCoins', splitCoins: { coin: argumentToProto(command.SplitCoins.coin), amounts: command.SplitCoins.amounts.map(argumentToProto) } } };
    case 'MergeCoins':
      return { command: { oneofKind: 'mergeCoins', mergeCoins: { coin: argumentToProto(command.MergeCoins.destination), coinsToMerge: command.MergeCoins.sources.map(argumentToProto) } } };
    case 'MakeMoveVec':
      return { command: { oneofKind: 'makeMoveVector', makeMoveVector: { elementType: command.MakeMoveVec.type ?? undefined, elements: command.MakeMoveVec.elements.map(argumentToProto) } } };
    case 'Publish':
      return { command: { oneofKind: 'publish', publish: { modules: command.Publish.modules.map((module) => Buffer.from(module, 'base64')), dependencies: command.Publish.dependencies } } };
    case 'Upgrade':
      return {
        command: {
          oneofKind: 'upgrade',
          upgrade: { modules: command.Upgrade.modules.map((module) => Buffer.from(module, 'base64')), dependencies: command.Upgrade.dependencies, package: command.Upgrade.package, ticket: argumentToProto(command.Upgrade.ticket) },
        },
      };
  }
}

function expirationToProto(expiration: ParsedTransactionData['V1']['expiration']): GrpcTypes.TransactionExpiration {
  const Kind = GrpcTypes.TransactionExpiration_TransactionExpirationKind;
  switch (expiration.$kind) {
    case 'None':
      return { kind: Kind.NONE };
    case 'Epoch':
      return { kind: Kind.EPOCH, epoch: BigInt(expiration.Epoch) };
    case 'ValidDuring':
    case 'Validity': {
      const validity = expiration.$kind === 'ValidDuring' ? expiration.ValidDuring : expiration.Validity;
      return {
        kind: expiration.$kind === 'ValidDuring' ? Kind.VALID_DURING : Kind.VALIDITY,
        minEpoch: validity.minEpoch != null ? BigInt(validity.minEpoch) : undefined,
        epoch: validity.maxEpoch != null ? BigInt(validity.maxEpoch) : undefined,
        minTimestamp: validity.minTimestamp != null ? toTimestamp(BigInt(validity.minTimestamp)) : undefined,
        maxTimestamp: validity.maxTimestamp != null ? toTimestamp(BigInt(validity.maxTimestamp)) : undefined,
        chain: validity.chain,
        nonce: validity.nonce,
      };
    }
  }
}

/** `Transaction` proto from the transaction's BCS (what the node returns under `transaction`). */
export function transactionDataToProto(txBcs: Uint8Array, digest: string): GrpcTypes.Transaction {
  const data = bcs.TransactionData.parse(txBcs).V1;
  const transaction: GrpcTypes.Transaction = {
    bcs: { name: 'TransactionData', value: txBcs },
    digest,
    version: 1,
    sender: data.sender,
    gasPayment: {
      objects: data.gasData.payment.map((ref) => ({ objectId: ref.objectId, version: BigInt(ref.version), digest: ref.digest })),
      owner: data.gasData.owner,
      price: BigInt(data.gasData.price),
      budget: BigInt(data.gasData.budget),
    },
    expiration: expirationToProto(data.expiration),
  };
  if (data.kind.$kind === 'ProgrammableTransaction') {
    transaction.kind = {
      kind: GrpcTypes.TransactionKind_Kind.PROGRAMMABLE_TRANSACTION,
      data: {
        oneofKind: 'programmableTransaction',
        programmableTransaction: { inputs: data.kind.ProgrammableTransaction.inputs.map(inputToProto), commands: data.kind.ProgrammableTransaction.commands.map(commandToProto) },
      },
    };
  } else if (data.kind.$kind === 'Genesis') {
    transaction.kind = { kind: GrpcTypes.TransactionKind_Kind.GENESIS, data: { oneofKind: 'genesis', genesis: { objects: [] } } };
  }
  return transaction;
}

const SCHEME: Record<SignatureRecord['scheme'], GrpcTypes.SignatureScheme> = {
  ed25519: GrpcTypes.SignatureScheme.ED25519,
  secp256k1: GrpcTypes.SignatureScheme.SECP256K1,
  secp256r1: GrpcTypes.SignatureScheme.SECP256R1,
  multisig: GrpcTypes.SignatureScheme.MULTISIG,
  zklogin: GrpcTypes.SignatureScheme.ZKLOGIN,
  passkey: GrpcTypes.SignatureScheme.PASSKEY,
};

export function signatureToProto(signature: SignatureRecord): GrpcTypes.UserSignature {
  const proto: GrpcTypes.UserSignature = { bcs: { value: signature.bytes }, scheme: SCHEME[signature.scheme], signature: { oneofKind: undefined } };
  if (signature.scheme === 'ed25519' || signature.scheme === 'secp256k1' || signature.scheme === 'secp256r1') {
    const keyLength = signature.scheme === 'ed25519' ? 32 : 33;
    proto.signature = {
      oneofKind: 'simple',
      simple: { scheme: SCHEME[signature.scheme], signature: signature.bytes.slice(1, 65), publicKey: signature.bytes.slice(65, 65 + keyLength) },
    };
  }
  return proto;
}

const ErrorKind = GrpcTypes.ExecutionError_ExecutionErrorKind;
const FAILURE_KIND: Record<ExecutionFailure['kind'], GrpcTypes.ExecutionError_ExecutionErrorKind> = {
  moveAbort: ErrorKind.MOVE_ABORT,
  insufficientGas: ErrorKind.INSUFFICIENT_GAS,
  insufficientCoinBalance: ErrorKind.INSUFFICIENT_COIN_BALANCE,
  invalidGasObject: ErrorKind.INVALID_GAS_OBJECT,
  commandArgumentError: ErrorKind.COMMAND_ARGUMENT_ERROR,
  featureNotYetSupported: ErrorKind.FEATURE_NOT_YET_SUPPORTED,
  functionNotFound: ErrorKind.FUNCTION_NOT_FOUND,
  insufficientFundsForWithdraw: ErrorKind.INSUFFICIENT_FUNDS_FOR_WITHDRAW,
};

export function statusToProto(status: EffectsRecord['status']): GrpcTypes.ExecutionStatus {
  if (status.success) return { success: true };
  const failure = status.failure;
  const error: GrpcTypes.ExecutionError = {
    description: failure.description,
    command: failure.command !== undefined ? BigInt(failure.command) : undefined,
    kind: FAILURE_KIND[failure.kind],
    errorDetails: { oneofKind: undefined },
  };
  if (failure.kind === 'moveAbort' && failure.abort) {
    error.errorDetails = {
      oneofKind: 'abort',
      abort: { abortCode: failure.abort.code, location: { package: failure.abort.packageId, module: failure.abort.module, function: 0, instruction: 0, functionName: failure.abort.functionName } },
    };
  } else if (failure.kind === 'commandArgumentError') {
    error.errorDetails = {
      oneofKind: 'commandArgumentError',
      commandArgumentError: { argument: failure.argument ?? 0, kind: GrpcTypes.CommandArgumentError_CommandArgumentErrorKind.TYPE_MISMATCH },
    };
  }
  return { success: false, error };
}

function changeToProto(change: ObjectChangeRecord): GrpcTypes.ChangedObject {
  const { InputObjectState, OutputObjectState, IdOperation } = {
    InputObjectState: GrpcTypes.ChangedObject_InputObjectState,
    OutputObjectState: GrpcTypes.ChangedObject_OutputObjectState,
    IdOperation: GrpcTypes.ChangedObject_IdOperation,
  };
  return {
    objectId: change.objectId,
    inputState: change.input ? InputObjectState.EXISTS : InputObjectState.DOES_NOT_EXIST,
    inputVersion: change.input?.version,
    inputDigest: change.input?.digest,
    inputOwner: change.input ? ownerToProto(change.input.owner) : undefined,
    outputState: !change.output ? OutputObjectState.DOES_NOT_EXIST : change.isPackage ? OutputObjectState.PACKAGE_WRITE : OutputObjectState.OBJECT_WRITE,
    outputVersion: change.output?.version,
    outputDigest: change.output?.digest,
    outputOwner: change.output && !change.isPackage ? ownerToProto(change.output.owner) : undefined,
    idOperation: change.idOperation === 'created' ? IdOperation.CREATED : change.idOperation === 'deleted' ? IdOperation.DELETED : IdOperation.NONE,
    objectType: change.objectType,
  };
}

export function effectsToProto(effects: EffectsRecord): GrpcTypes.TransactionEffects {
  const changedObjects = effects.changedObjects.map(changeToProto);
  const gasObject = effects.gasObjectId ? changedObjects.find((change) => change.objectId === effects.gasObjectId) : undefined;
  return {
    bcs: { name: 'TransactionEffects', value: effects.bcs },
    digest: effects.digest,
    version: 2,
    status: statusToProto(effects.status),
    epoch: effects.epoch,
    gasUsed: effects.gasUsed,
    transactionDigest: effects.transactionDigest,
    gasObject,
    eventsDigest: effects.eventsDigest,
    dependencies: [...effects.dependencies],
    lamportVersion: effects.lamportVersion,
    changedObjects,
    unchangedConsensusObjects: [],
    unchangedLoadedRuntimeObjects: [],
  };
}

export function eventToProto(event: EventRecord): GrpcTypes.Event {
  return {
    packageId: event.packageId,
    module: event.module,
    sender: event.sender,
    eventType: event.type,
    contents: { name: event.type, value: event.contents },
    json: toProtoValue(event.json),
    checkpoint: event.checkpoint,
    transactionDigest: event.transactionDigest,
    eventIndex: event.eventIndex,
  };
}

/** Full `ExecutedTransaction` for a record; parts the mask does not touch are not built. */
export function executedTransactionToProto(record: TransactionRecord, mask: ReadMask, ledger?: LedgerReader): GrpcTypes.ExecutedTransaction {
  const executed: GrpcTypes.ExecutedTransaction = {
    digest: record.digest,
    signatures: mask.has('signatures') ? record.signatures.map(signatureToProto) : [],
    checkpoint: record.checkpoint,
    timestamp: record.timestampMs !== undefined ? toTimestamp(record.timestampMs) : undefined,
    balanceChanges: mask.has('balance_changes') ? record.balanceChanges.map((change) => ({ address: change.address, coinType: change.coinType, amount: change.amount.toString() })) : [],
  };
  if (mask.has('transaction')) executed.transaction = transactionDataToProto(record.bcs, record.digest);
  if (mask.has('effects')) executed.effects = effectsToProto(record.effects);
  if (mask.has('events')) {
    executed.events = record.events.length > 0 || record.effects.eventsDigest ? { digest: record.effects.eventsDigest, events: record.events.map(eventToProto) } : undefined;
  }
  if (mask.has('objects') && ledger) executed.objects = { objects: transactionObjects(record, ledger, mask.sub('objects').sub('objects')) };
  return executed;
}

/** The input and output versions of every object a transaction changed (`objects` in the API). */
export function transactionObjects(record: TransactionRecord, ledger: LedgerReader, mask: ReadMask): GrpcTypes.Object[] {
  const objects: GrpcTypes.Object[] = [];
  for (const change of record.effects.changedObjects) {
    for (const ref of [change.input, change.output]) {
      if (!ref) continue;
      const version = ledger.getObjectAtVersion(change.objectId, ref.version);
      if (version && !('deleted' in version)) objects.push(objectToProto(version, mask));
    }
  }
  return objects;
}
