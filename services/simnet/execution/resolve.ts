import { bcs } from '@mysten/sui/bcs';
import { GrpcTypes } from '@mysten/sui/grpc';
import { normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import type { Ledger } from '../ledger/index.js';
import { SUI_COIN_TYPE, ZERO_ADDRESS } from '../ledger/constants.js';
import { TransactionRejected } from './failure.js';
import type { Executor } from './executor.js';
import { GasModel } from './gas.js';

type DataInput = Parameters<typeof bcs.TransactionData.serialize>[0];
type V1Input = Extract<DataInput, { V1: unknown }>['V1'];
type CallArgInput = Parameters<typeof bcs.CallArg.serialize>[0];
type CommandInput = Parameters<typeof bcs.Command.serialize>[0];
type ArgumentInput = Parameters<typeof bcs.Argument.serialize>[0];

const { Input_InputKind: InputKind, Argument_ArgumentKind: ArgumentKind } = GrpcTypes;

function argument(arg: GrpcTypes.Argument | undefined): ArgumentInput {
  switch (arg?.kind) {
    case ArgumentKind.GAS:
      return { GasCoin: true };
    case ArgumentKind.INPUT:
      return { Input: arg.input ?? 0 };
    case ArgumentKind.RESULT:
      return arg.subresult !== undefined ? { NestedResult: [arg.result ?? 0, arg.subresult] } : { Result: arg.result ?? 0 };
    default:
      throw new TransactionRejected('invalid argument kind');
  }
}

function command(proto: GrpcTypes.Command): CommandInput {
  const c = proto.command;
  switch (c.oneofKind) {
    case 'moveCall':
      return { MoveCall: { package: c.moveCall.package ?? '', module: c.moveCall.module ?? '', function: c.moveCall.function ?? '', typeArguments: c.moveCall.typeArguments, arguments: c.moveCall.arguments.map(argument) } };
    case 'transferObjects':
      return { TransferObjects: { objects: c.transferObjects.objects.map(argument), address: argument(c.transferObjects.address) } };
    case 'splitCoins':
      return { SplitCoins: { coin: argument(c.splitCoins.coin), amounts: c.splitCoins.amounts.map(argument) } };
    case 'mergeCoins':
      return { MergeCoins: { destination: argument(c.mergeCoins.coin), sources: c.mergeCoins.coinsToMerge.map(argument) } };
    case 'makeMoveVector':
      return { MakeMoveVec: { type: c.makeMoveVector.elementType ?? null, elements: c.makeMoveVector.elements.map(argument) } };
    case 'publish':
      return { Publish: { modules: c.publish.modules.map((module) => toBase64(module)), dependencies: c.publish.dependencies } };
    case 'upgrade':
      return { Upgrade: { modules: c.upgrade.modules.map((module) => toBase64(module)), dependencies: c.upgrade.dependencies, package: c.upgrade.package ?? '', ticket: argument(c.upgrade.ticket) } };
    default:
      throw new TransactionRejected('unknown command');
  }
}

/** Resolves an input the way the node does for SDK builds: unresolved objects get their current reference. */
function input(ledger: Ledger, proto: GrpcTypes.Input): CallArgInput {
  switch (proto.kind) {
    case InputKind.PURE:
      return { Pure: { bytes: proto.pure ?? new Uint8Array() } };
    case InputKind.IMMUTABLE_OR_OWNED:
      return { Object: { ImmOrOwnedObject: { objectId: proto.objectId ?? '', version: proto.version ?? 0n, digest: proto.digest ?? '' } } };
    case InputKind.SHARED:
      return { Object: { SharedObject: { objectId: proto.objectId ?? '', initialSharedVersion: proto.version ?? 0n, mutable: proto.mutable ?? proto.mutability === GrpcTypes.Input_Mutability.MUTABLE } } };
    case InputKind.RECEIVING:
      return { Object: { Receiving: { objectId: proto.objectId ?? '', version: proto.version ?? 0n, digest: proto.digest ?? '' } } };
    case InputKind.FUNDS_WITHDRAWAL: {
      const withdrawal = proto.fundsWithdrawal ?? {};
      const source = withdrawal.source;
      const withdrawFrom =
        source === GrpcTypes.FundsWithdrawal_Source.SENDER_ALLOWANCE
          ? { SenderAllowance: { funder: withdrawal.funder ?? '', allowance: withdrawal.allowance ?? '' } }
          : source === GrpcTypes.FundsWithdrawal_Source.SPONSOR
            ? { Sponsor: true }
            : { Sender: true };
      return { FundsWithdrawal: { reservation: { MaxAmountU64: withdrawal.amount ?? 0n }, typeArg: { Balance: withdrawal.coinType ?? SUI_COIN_TYPE }, withdrawFrom } } as CallArgInput;
    }
    default: {
      if (!proto.objectId) throw new TransactionRejected('input has neither a kind nor an object id');
      const id = normalizeSuiAddress(proto.objectId);
      const record = ledger.getObject(id);
      if (!record) throw new TransactionRejected(`object ${id} not found`);
      if (record.owner.kind === 'shared') {
        const mutable = proto.mutable ?? (proto.mutability === undefined ? true : proto.mutability === GrpcTypes.Input_Mutability.MUTABLE);
        return { Object: { SharedObject: { objectId: id, initialSharedVersion: record.owner.initialSharedVersion, mutable } } };
      }
      return { Object: { ImmOrOwnedObject: { objectId: id, version: record.version, digest: record.digest } } };
    }
  }
}

function expiration(proto: GrpcTypes.TransactionExpiration | undefined): V1Input['expiration'] {
  const Kind = GrpcTypes.TransactionExpiration_TransactionExpirationKind;
  if (!proto || proto.kind === Kind.NONE || proto.kind === undefined) return { None: true };
  if (proto.kind === Kind.EPOCH) return { Epoch: String(proto.epoch ?? 0n) };
  const ms = (timestamp: GrpcTypes.TransactionExpiration['minTimestamp']) => (timestamp ? timestamp.seconds * 1000n + BigInt(Math.floor(timestamp.nanos / 1e6)) : null);
  const validity = { minEpoch: proto.minEpoch ?? null, maxEpoch: proto.epoch ?? null, minTimestamp: ms(proto.minTimestamp), maxTimestamp: ms(proto.maxTimestamp), chain: proto.chain ?? '', nonce: proto.nonce ?? 0 };
  if (proto.kind === Kind.VALID_DURING) return { ValidDuring: validity };
  return { Validity: { ...validity, allowedProposers: proto.allowedProposers ? { epoch: proto.allowedProposers.epoch ?? 0n, proposers: proto.allowedProposers.proposers } : null } } as V1Input['expiration'];
}

export interface ResolveOptions {
  readonly doGasSelection: boolean;
  readonly checks: boolean;
}

/**
 * Turns a simulate request's transaction (BCS, or an SDK-built proto with unresolved inputs
 * and gas) into TransactionData BCS, selecting gas coins and a budget when asked to.
 */
export function resolveTransaction(ledger: Ledger, executor: Executor, proto: GrpcTypes.Transaction, options: ResolveOptions): Uint8Array {
  let data: V1Input;
  let needsBudget = false;
  if (proto.bcs?.value && proto.bcs.value.length > 0) {
    try {
      data = bcs.TransactionData.parse(proto.bcs.value).V1 as unknown as V1Input;
    } catch {
      throw new TransactionRejected('transaction bcs is not a valid TransactionData');
    }
  } else {
    const kind = proto.kind?.data;
    if (kind?.oneofKind !== 'programmableTransaction') throw new TransactionRejected('only programmable transactions can be simulated');
    const sender = normalizeSuiAddress(proto.sender ?? ZERO_ADDRESS);
    needsBudget = proto.gasPayment?.budget === undefined;
    data = {
      kind: { ProgrammableTransaction: { inputs: kind.programmableTransaction.inputs.map((entry) => input(ledger, entry)), commands: kind.programmableTransaction.commands.map(command) } },
      sender,
      gasData: {
        payment: (proto.gasPayment?.objects ?? []).map((ref) => ({ objectId: ref.objectId ?? '', version: ref.version ?? 0n, digest: ref.digest ?? '' })),
        owner: proto.gasPayment?.owner ?? sender,
        price: proto.gasPayment?.price ?? ledger.referenceGasPrice(),
        budget: proto.gasPayment?.budget ?? 0n,
      },
      expiration: expiration(proto.expiration),
    };
  }
  if (options.doGasSelection) selectGas(ledger, executor, data, needsBudget, options.checks);
  return bcs.TransactionData.serialize({ V1: data }).toBytes();
}

function serialize(data: V1Input): Uint8Array {
  return bcs.TransactionData.serialize({ V1: data }).toBytes();
}

type GasCoin = ReturnType<Ledger['listCoins']>['items'][number];

/**
 * Simulates with the largest candidate coin as gas (what most selections end with), falling
 * back to all candidates, or a mock coin when there are none.
 */
function probeGas(executor: Executor, data: V1Input, candidates: GasCoin[], maxTxGas: bigint, refs: (coins: GasCoin[]) => V1Input['gasData']['payment']) {
  const attempt = (coins: GasCoin[]) => {
    const total = coins.reduce((sum, coin) => sum + coin.coin!.balance, 0n);
    if (coins.length > 0) data.gasData.payment = refs(coins);
    data.gasData.budget = coins.length > 0 && total < maxTxGas ? total : maxTxGas;
    return executor.execute(serialize(data), { checks: false, mockGas: coins.length === 0 });
  };
  if (candidates.length > 1) {
    const single = attempt(candidates.slice(0, 1));
    if (single.record.effects.status.success) return single;
  }
  return attempt(candidates);
}

function selectGas(ledger: Ledger, executor: Executor, data: V1Input, needsBudget: boolean, checks: boolean): void {
  const owner = normalizeSuiAddress(String(data.gasData.owner));
  const maxTxGas = BigInt(ledger.protocolConfig().attributes.max_tx_gas ?? '50000000000');
  const maxCoins = Number(ledger.protocolConfig().attributes.max_gas_payment_objects ?? '256');
  const used = new Set<string>();
  const program = (data.kind as unknown as { ProgrammableTransaction: { inputs: CallArgInput[] } }).ProgrammableTransaction;
  for (const entry of program.inputs) {
    const object = (entry as { Object?: { ImmOrOwnedObject?: { objectId: string } } }).Object?.ImmOrOwnedObject;
    if (object) used.add(normalizeSuiAddress(object.objectId));
  }
  const candidates = data.gasData.payment.length > 0 ? [] : ledger.listCoins(owner, SUI_COIN_TYPE, { limit: 1000 }).items.filter((coin) => !used.has(coin.objectId)).slice(0, maxCoins);
  if (candidates.length === 0 && !needsBudget) return;
  const refs = (coins: GasCoin[]) => coins.map((coin) => ({ objectId: coin.objectId, version: coin.version, digest: coin.digest }));
  const givenBudget = BigInt(data.gasData.budget);
  const probe = probeGas(executor, data, candidates, maxTxGas, refs);
  if (needsBudget) {
    // The node's estimate: max(computation, net charge) + 1000 × reference gas price, capped.
    const estimate = GasModel.charged(probe.record.effects.gasUsed) + 1000n * ledger.referenceGasPrice();
    data.gasData.budget = estimate < maxTxGas ? estimate : maxTxGas;
  } else {
    data.gasData.budget = givenBudget;
  }
  if (candidates.length === 0) return;
  // Largest coins first until they cover the budget and what the commands take from the gas
  // coin; more coins only add rebates (smashed coins are deleted), so the budget still holds.
  const required = BigInt(data.gasData.budget) + probe.gasCoinSpend;
  const chosen: GasCoin[] = [];
  let sum = 0n;
  for (const coin of candidates) {
    chosen.push(coin);
    sum += coin.coin!.balance;
    if (sum >= required) break;
  }
  if (checks && sum < required) throw new TransactionRejected(`insufficient SUI balance for gas: ${sum} < ${required}`);
  data.gasData.payment = refs(chosen);
}
