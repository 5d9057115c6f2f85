import { GrpcTypes } from '@mysten/sui/grpc';
import type { bcs } from '@mysten/sui/bcs';
import type { BalanceChangeRecord, ExecutionFailure, ObjectOwner, TransactionRecord } from '../ledger/index.js';

/**
 * Sui's GraphQL service answers `transactionJson`, `effectsJson` and `balanceChangesJson` with the
 * gRPC v2 messages in protobuf JSON; the SDK parses them back with the same generated types. These
 * builders map the ledger's records onto those messages (see NEEDS.md: shared with gRPC later).
 */
type ParsedTransaction = ReturnType<typeof bcs.TransactionData.parse>;
type ParsedArgument = ParsedTransaction['V1']['kind'] extends infer K
  ? K extends { ProgrammableTransaction: { commands: (infer C)[] } | null }
    ? C extends { TransferObjects: { address: infer A } | null }
      ? NonNullable<A>
      : never
    : never
  : never;

const { Argument_ArgumentKind: ArgumentKind, Input_InputKind: InputKind } = GrpcTypes;

function argument(arg: ParsedArgument): GrpcTypes.Argument {
  if (arg.GasCoin) return { kind: ArgumentKind.GAS };
  if (arg.Input != null) return { kind: ArgumentKind.INPUT, input: arg.Input };
  if (arg.Result != null) return { kind: ArgumentKind.RESULT, result: arg.Result };
  const [result, subresult] = arg.NestedResult!;
  return { kind: ArgumentKind.RESULT, result, subresult };
}

type ParsedProgrammable = NonNullable<ParsedTransaction['V1']['kind']['ProgrammableTransaction']>;

function input(callArg: ParsedProgrammable['inputs'][number]): GrpcTypes.Input {
  if (callArg.Pure) return { kind: InputKind.PURE, pure: Buffer.from(callArg.Pure.bytes, 'base64') };
  const object = callArg.Object;
  if (object?.ImmOrOwnedObject) {
    const ref = object.ImmOrOwnedObject;
    return { kind: InputKind.IMMUTABLE_OR_OWNED, objectId: ref.objectId, version: BigInt(ref.version), digest: ref.digest };
  }
  if (object?.SharedObject) {
    const shared = object.SharedObject;
    return { kind: InputKind.SHARED, objectId: shared.objectId, version: BigInt(shared.initialSharedVersion), mutable: shared.mutable };
  }
  if (object?.Receiving) {
    const ref = object.Receiving;
    return { kind: InputKind.RECEIVING, objectId: ref.objectId, version: BigInt(ref.version), digest: ref.digest };
  }
  return { kind: InputKind.FUNDS_WITHDRAWAL };
}

function command(cmd: ParsedProgrammable['commands'][number]): GrpcTypes.Command {
  if (cmd.MoveCall) {
    const call = cmd.MoveCall;
    return {
      command: {
        oneofKind: 'moveCall',
        moveCall: { package: call.package, module: call.module, function: call.function, typeArguments: call.typeArguments, arguments: call.arguments.map(argument) },
      },
    };
  }
  if (cmd.TransferObjects) {
    return { command: { oneofKind: 'transferObjects', transferObjects: { objects: cmd.TransferObjects.objects.map(argument), address: argument(cmd.TransferObjects.address) } } };
  }
  if (cmd.SplitCoins) {
    return { command: { oneofKind: 'splitCoins', splitCoins: { coin: argument(cmd.SplitCoins.coin), amounts: cmd.SplitCoins.amounts.map(argument) } } };
  }
  if (cmd.MergeCoins) {
    return { command: { oneofKind: 'mergeCoins', mergeCoins: { coin: argument(cmd.MergeCoins.destination), coinsToMerge: cmd.MergeCoins.sources.map(argument) } } };
  }
  if (cmd.Publish) {
    return { command: { oneofKind: 'publish', publish: { modules: cmd.Publish.modules.map((m) => Buffer.from(m, 'base64')), dependencies: cmd.Publish.dependencies } } };
  }
  if (cmd.MakeMoveVec) {
    return { command: { oneofKind: 'makeMoveVector', makeMoveVector: { elementType: cmd.MakeMoveVec.type ?? undefined, elements: cmd.MakeMoveVec.elements.map(argument) } } };
  }
  const upgrade = cmd.Upgrade!;
  return {
    command: {
      oneofKind: 'upgrade',
      upgrade: { modules: upgrade.modules.map((m) => Buffer.from(m, 'base64')), dependencies: upgrade.dependencies, package: upgrade.package, ticket: argument(upgrade.ticket) },
    },
  };
}

function kind(data: ParsedTransaction): GrpcTypes.TransactionKind {
  const parsedKind = data.V1.kind;
  const ptb = parsedKind.ProgrammableTransaction ?? parsedKind.ProgrammableSystemTransaction;
  if (ptb) {
    return {
      kind: parsedKind.ProgrammableTransaction ? GrpcTypes.TransactionKind_Kind.PROGRAMMABLE_TRANSACTION : GrpcTypes.TransactionKind_Kind.PROGRAMMABLE_SYSTEM_TRANSACTION,
      data: { oneofKind: 'programmableTransaction', programmableTransaction: { inputs: ptb.inputs.map(input), commands: ptb.commands.map(command) } },
    };
  }
  if (parsedKind.Genesis) {
    return { kind: GrpcTypes.TransactionKind_Kind.GENESIS, data: { oneofKind: 'genesis', genesis: { objects: [] } } };
  }
  return { data: { oneofKind: undefined } };
}

function expiration(data: ParsedTransaction): GrpcTypes.TransactionExpiration {
  const { Epoch } = data.V1.expiration;
  const Kind = GrpcTypes.TransactionExpiration_TransactionExpirationKind;
  return Epoch != null ? { kind: Kind.EPOCH, epoch: BigInt(Epoch) } : { kind: Kind.NONE };
}

export function transactionJson(tx: TransactionRecord, data: ParsedTransaction): unknown {
  const gas = data.V1.gasData;
  return GrpcTypes.Transaction.toJson({
    bcs: { name: 'TransactionData', value: tx.bcs },
    digest: tx.digest,
    version: 1,
    kind: kind(data),
    sender: data.V1.sender,
    gasPayment: {
      objects: gas.payment.map((ref) => ({ objectId: ref.objectId, version: BigInt(ref.version), digest: ref.digest })),
      owner: gas.owner,
      price: BigInt(gas.price),
      budget: BigInt(gas.budget),
    },
    expiration: expiration(data),
  });
}

function owner(o: ObjectOwner): GrpcTypes.Owner {
  const Kind = GrpcTypes.Owner_OwnerKind;
  switch (o.kind) {
    case 'address':
      return { kind: Kind.ADDRESS, address: o.address };
    case 'object':
      return { kind: Kind.OBJECT, address: o.address };
    case 'shared':
      return { kind: Kind.SHARED, version: o.initialSharedVersion };
    case 'immutable':
      return { kind: Kind.IMMUTABLE };
  }
}

const ERROR_KIND: Record<ExecutionFailure['kind'], GrpcTypes.ExecutionError_ExecutionErrorKind> = {
  moveAbort: GrpcTypes.ExecutionError_ExecutionErrorKind.MOVE_ABORT,
  insufficientGas: GrpcTypes.ExecutionError_ExecutionErrorKind.INSUFFICIENT_GAS,
  insufficientCoinBalance: GrpcTypes.ExecutionError_ExecutionErrorKind.INSUFFICIENT_COIN_BALANCE,
  invalidGasObject: GrpcTypes.ExecutionError_ExecutionErrorKind.INVALID_GAS_OBJECT,
  commandArgumentError: GrpcTypes.ExecutionError_ExecutionErrorKind.COMMAND_ARGUMENT_ERROR,
  featureNotYetSupported: GrpcTypes.ExecutionError_ExecutionErrorKind.FEATURE_NOT_YET_SUPPORTED,
  functionNotFound: GrpcTypes.ExecutionError_ExecutionErrorKind.FUNCTION_NOT_FOUND,
  insufficientFundsForWithdraw: GrpcTypes.ExecutionError_ExecutionErrorKind.INSUFFICIENT_FUNDS_FOR_WITHDRAW,
};

function executionError(failure: ExecutionFailure): GrpcTypes.ExecutionError {
  const abort = failure.abort;
  return {
    description: failure.description,
    command: failure.command !== undefined ? BigInt(failure.command) : undefined,
    kind: ERROR_KIND[failure.kind],
    errorDetails: abort
      ? { oneofKind: 'abort', abort: { abortCode: abort.code, location: { package: abort.packageId, module: abort.module, functionName: abort.functionName } } }
      : { oneofKind: undefined },
  };
}

export function effectsJson(tx: TransactionRecord): unknown {
  const effects = tx.effects;
  const { InputState, OutputState, IdOperation } = {
    InputState: GrpcTypes.ChangedObject_InputObjectState,
    OutputState: GrpcTypes.ChangedObject_OutputObjectState,
    IdOperation: GrpcTypes.ChangedObject_IdOperation,
  };
  const changedObjects: GrpcTypes.ChangedObject[] = effects.changedObjects.map((change) => ({
    objectId: change.objectId,
    inputState: change.input ? InputState.EXISTS : InputState.DOES_NOT_EXIST,
    inputVersion: change.input?.version,
    inputDigest: change.input?.digest,
    inputOwner: change.input ? owner(change.input.owner) : undefined,
    outputState: change.output ? (change.isPackage ? OutputState.PACKAGE_WRITE : OutputState.OBJECT_WRITE) : OutputState.DOES_NOT_EXIST,
    outputVersion: change.output?.version,
    outputDigest: change.output?.digest,
    outputOwner: change.output ? owner(change.output.owner) : undefined,
    idOperation: change.idOperation === 'created' ? IdOperation.CREATED : change.idOperation === 'deleted' ? IdOperation.DELETED : IdOperation.NONE,
    objectType: change.isPackage ? 'package' : change.objectType,
  }));
  return GrpcTypes.TransactionEffects.toJson({
    bcs: { name: 'TransactionEffects', value: effects.bcs },
    digest: effects.digest,
    version: 2,
    status: effects.status.success ? { success: true } : { success: false, error: executionError(effects.status.failure) },
    epoch: effects.epoch,
    gasUsed: effects.gasUsed,
    transactionDigest: effects.transactionDigest,
    gasObject: changedObjects.find((change) => change.objectId === effects.gasObjectId),
    eventsDigest: effects.eventsDigest,
    dependencies: [...effects.dependencies],
    lamportVersion: effects.lamportVersion,
    changedObjects,
    unchangedConsensusObjects: [],
    unchangedLoadedRuntimeObjects: [],
  });
}

export function balanceChangeJson(change: BalanceChangeRecord): unknown {
  return GrpcTypes.BalanceChange.toJson({ address: change.address, coinType: change.coinType, amount: change.amount.toString() });
}
