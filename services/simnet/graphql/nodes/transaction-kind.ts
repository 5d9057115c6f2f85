import type { TransactionRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { PageArgs } from '../pagination.js';
import { MoveModuleNode, MoveTypeNode } from './move.js';
import { ObjectNode, isTombstone } from './objects.js';
import { parseTransaction } from './transaction-filters.js';

/**
 * `Transaction.kind`: programmable transactions with their inputs and commands (decoded from the
 * transaction's BCS), and genesis with the objects it created.
 */
type Programmable = NonNullable<ReturnType<typeof parseTransaction>['V1']['kind']['ProgrammableTransaction']>;
type ParsedCommand = Programmable['commands'][number];
type ParsedArgument = NonNullable<ParsedCommand['TransferObjects']>['address'];

function argument(arg: ParsedArgument): object {
  if (arg.GasCoin) return { __typename: 'GasCoin', _: null };
  if (arg.Input != null) return { __typename: 'Input', ix: arg.Input };
  if (arg.Result != null) return { __typename: 'TxResult', cmd: arg.Result, ix: null };
  const [cmd, ix] = arg.NestedResult!;
  return { __typename: 'TxResult', cmd, ix };
}

function objectAt(ctx: RequestContext, objectId: string, version: string | number | bigint): ObjectNode | null {
  const record = ctx.ledger.getObjectAtVersion(objectId, BigInt(version));
  return record && !isTombstone(record) ? ObjectNode.of(ctx, record, 'Object') : null;
}

function input(ctx: RequestContext, callArg: Programmable['inputs'][number]): object {
  if (callArg.Pure) return { __typename: 'Pure', bytes: callArg.Pure.bytes };
  const object = callArg.Object;
  if (object?.ImmOrOwnedObject) {
    const ref = object.ImmOrOwnedObject;
    return { __typename: 'OwnedOrImmutable', object: () => objectAt(ctx, ref.objectId, ref.version) };
  }
  if (object?.SharedObject) {
    const shared = object.SharedObject;
    return { __typename: 'SharedInput', address: shared.objectId, initialSharedVersion: Number(shared.initialSharedVersion), mutable: shared.mutable };
  }
  if (object?.Receiving) {
    const ref = object.Receiving;
    return { __typename: 'Receiving', object: () => objectAt(ctx, ref.objectId, ref.version) };
  }
  return { __typename: 'BalanceWithdraw' };
}

function command(ctx: RequestContext, cmd: ParsedCommand): object {
  if (cmd.MoveCall) {
    const call = cmd.MoveCall;
    const module = new MoveModuleNode(ctx, call.package, call.module);
    return {
      __typename: 'MoveCallCommand',
      arguments: call.arguments.map(argument),
      function: () => module.calledFunction(call.function),
    };
  }
  if (cmd.TransferObjects) return { __typename: 'TransferObjectsCommand', inputs: cmd.TransferObjects.objects.map(argument), address: argument(cmd.TransferObjects.address) };
  if (cmd.SplitCoins) return { __typename: 'SplitCoinsCommand', coin: argument(cmd.SplitCoins.coin), amounts: cmd.SplitCoins.amounts.map(argument) };
  if (cmd.MergeCoins) return { __typename: 'MergeCoinsCommand', coin: argument(cmd.MergeCoins.destination), coins: cmd.MergeCoins.sources.map(argument) };
  if (cmd.Publish) return { __typename: 'PublishCommand', modules: cmd.Publish.modules, dependencies: cmd.Publish.dependencies };
  if (cmd.MakeMoveVec) {
    const type = cmd.MakeMoveVec.type;
    return { __typename: 'MakeMoveVecCommand', type: type ? new MoveTypeNode(type) : null, elements: cmd.MakeMoveVec.elements.map(argument) };
  }
  if (cmd.Upgrade) {
    const upgrade = cmd.Upgrade;
    return { __typename: 'UpgradeCommand', modules: upgrade.modules, dependencies: upgrade.dependencies, currentPackage: upgrade.package, upgradeTicket: argument(upgrade.ticket) };
  }
  return { __typename: 'OtherCommand', _: null };
}

export function transactionKind(ctx: RequestContext, tx: TransactionRecord): object {
  const kind = parseTransaction(tx).V1.kind;
  const ptb = kind.ProgrammableTransaction ?? kind.ProgrammableSystemTransaction;
  if (ptb) {
    const listing = <T>(items: readonly T[], field: string, node: (item: T) => object) => (args: PageArgs) =>
      paginate(
        items.map((item, index) => ({ item, index })),
        (i) => i.index,
        pageFromArgs(args, pageLimits('ProgrammableTransaction', field)),
        (i) => node(i.item),
      );
    return {
      __typename: kind.ProgrammableTransaction ? 'ProgrammableTransaction' : 'ProgrammableSystemTransaction',
      inputs: listing(ptb.inputs, 'inputs', (i) => input(ctx, i)),
      commands: listing(ptb.commands, 'commands', (c) => command(ctx, c)),
    };
  }
  if (kind.Genesis) {
    return {
      __typename: 'GenesisTransaction',
      objects: (args: PageArgs) => {
        const created = tx.effects.changedObjects.flatMap((change, index) => (change.output ? [{ change, index }] : []));
        return paginate(created, (c) => c.index, pageFromArgs(args, pageLimits('GenesisTransaction', 'objects')), ({ change }) => objectAt(ctx, change.objectId, change.output!.version));
      },
    };
  }
  return { __typename: 'ProgrammableSystemTransaction' };
}
