import { bcs } from '@mysten/sui/bcs';
import { Transaction, type TransactionObjectArgument } from '@mysten/sui/transactions';
import { normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import { JSONRPC_ERROR, JsonRpcError, upstreamFailure, type JsonRpcContext, type JsonRpcMethod } from '../../method.js';
import { address, u64, type Json } from './legacy-values.js';
import { u64Param } from '../../params.js';

/**
 * The `unsafe_*` transaction builders: the PTB a node would build, built with the SDK's
 * `Transaction` against the request's upstream (objects and Move signatures resolved over gRPC
 * v2), answered as `TransactionBlockBytes`. Gas, when not given, is picked as a node picks it: one
 * SUI coin of the signer's, not among the inputs, worth at least the budget.
 */

const SUI_COIN = '0x2::coin::Coin<0x2::sui::SUI>';
/** The Sui system state object: shared since genesis (initial shared version 1 on every network). */
const SYSTEM_STATE = { objectId: '0x5', initialSharedVersion: 1, mutable: true };
/** gRPC statuses that say the upstream, not the request, failed. */
const TRANSPORT_CODES = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'INTERNAL', 'UNKNOWN', 'RESOURCE_EXHAUSTED', 'CANCELLED']);

interface ObjectRef { objectId: string; version: string; digest: string }



async function referenceGasPrice(context: JsonRpcContext): Promise<bigint> {
  const { response } = await context.upstream.call('GetEpoch', (o) =>
    context.upstream.grpc.ledgerService.getEpoch({ readMask: { paths: ['reference_gas_price'] } }, o), { idempotent: true });
  return response.epoch?.referenceGasPrice ?? 1000n;
}

async function objectRefs(context: JsonRpcContext, ids: string[]): Promise<ObjectRef[]> {
  if (ids.length === 0) return [];
  const { response } = await context.upstream.call('BatchGetObjects', (o) =>
    context.upstream.grpc.ledgerService.batchGetObjects({
      requests: ids.map((objectId) => ({ objectId })), readMask: { paths: ['object_id', 'version', 'digest'] },
    }, o), { idempotent: true });
  return response.objects.map((entry, i) => {
    if (entry.result.oneofKind !== 'object') {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: object ${ids[i]} does not exist`, { code: 'NOT_FOUND' });
    }
    const object = entry.result.object;
    return { objectId: address(object.objectId), version: u64(object.version), digest: object.digest ?? '' };
  });
}

/** A node's gas selection: the first SUI coin of the signer's, not used as an input, holding at least the budget. */
async function selectGas(context: JsonRpcContext, signer: string, budget: bigint, exclude: Set<string>): Promise<ObjectRef> {
  let pageToken: Uint8Array | undefined;
  do {
    const { response } = await context.upstream.call('ListOwnedObjects', (o) =>
      context.upstream.grpc.stateService.listOwnedObjects({
        owner: signer, objectType: SUI_COIN, pageSize: 200, ...(pageToken ? { pageToken } : {}),
        readMask: { paths: ['object_id', 'version', 'digest', 'balance'] },
      }, o), { idempotent: true });
    for (const object of response.objects) {
      const id = address(object.objectId);
      if (!exclude.has(id) && (object.balance ?? 0n) >= budget) return { objectId: id, version: u64(object.version), digest: object.digest ?? '' };
    }
    pageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
  } while (pageToken);
  throw new JsonRpcError(JSONRPC_ERROR.invalidParams,
    `Cannot find gas coin for signer address [${signer}] with amount sufficient for the required gas budget [${budget}]. If you are using the pay or transfer SUI API, please use the sui-coins as gas`,
    { code: 'INSUFFICIENT_GAS' });
}

interface BuildPlan {
  signer: string;
  budget: bigint;
  /** Explicit gas coins (the caller's `gas`, or the SUI coins paySui/payAllSui/transferSui spend). */
  gas?: string[];
  /** Objects the commands use: never picked as gas. */
  inputs: string[];
  /** Objects to read first and pass to `compose` as refs; with them, a plan that needs no Move signature builds offline. */
  refs?: string[];
  offline?: boolean;
  compose(tx: Transaction, refs: Map<string, ObjectRef>): void;
}

function inputObjects(txBytes: Uint8Array, gas: ObjectRef[]): Json[] {
  const data = bcs.TransactionData.parse(txBytes).V1;
  const out: Json[] = [];
  if (data.kind.$kind === 'ProgrammableTransaction') {
    const ptb = data.kind.ProgrammableTransaction;
    for (const command of ptb.commands) {
      if (command.$kind === 'MoveCall') out.push({ MovePackage: address(command.MoveCall.package) });
    }
    for (const input of ptb.inputs) {
      if (input.$kind !== 'Object') continue;
      const object = input.Object;
      if (object.$kind === 'SharedObject') {
        out.push({ SharedMoveObject: { id: address(object.SharedObject.objectId), initial_shared_version: u64(object.SharedObject.initialSharedVersion), mutable: object.SharedObject.mutable } });
      } else {
        const ref = object.$kind === 'ImmOrOwnedObject' ? object.ImmOrOwnedObject : object.Receiving;
        out.push({ ImmOrOwnedMoveObject: { objectId: address(ref.objectId), version: u64(ref.version), digest: ref.digest } });
      }
    }
  }
  for (const ref of gas) out.push({ ImmOrOwnedMoveObject: { ...ref } });
  return out;
}

async function build(context: JsonRpcContext, plan: BuildPlan): Promise<Json> {
  const signer = normalizeSuiAddress(plan.signer);
  const inputs = new Set(plan.inputs.map((id) => normalizeSuiAddress(id)));
  const [price, gas, refs] = await Promise.all([
    referenceGasPrice(context),
    plan.gas?.length ? objectRefs(context, plan.gas) : selectGas(context, signer, plan.budget, inputs).then((ref) => [ref]),
    objectRefs(context, plan.refs ?? []),
  ]);
  const byId = new Map(refs.map((ref) => [ref.objectId, ref]));
  const tx = new Transaction();
  tx.setSender(signer);
  tx.setGasPrice(price);
  tx.setGasBudget(plan.budget);
  tx.setGasPayment(gas);
  try {
    plan.compose(tx, byId);
  } catch (error) {
    // The SDK refuses a malformed value (an id, an amount) while composing: the caller's input.
    if (error instanceof JsonRpcError) throw error;
    throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${error instanceof Error ? error.message : String(error)}`);
  }
  let txBytes: Uint8Array;
  try {
    // The SDK resolves object inputs and pure values (by the Move signatures) with the upstream's
    // gRPC client directly: those lookups are reads outside `upstream.call`, so they count toward
    // no breaker; a transport failure among them is still a server error below. Each has an
    // attempt's deadline, within the request's budget: a node that never answers one cannot
    // hold the request.
    txBytes = plan.offline ? await tx.build() : await tx.build({ client: context.upstream.grpcWithDeadline() });
  } catch (error) {
    if (error instanceof JsonRpcError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSPORT_CODES.has(code)) {
      throw upstreamFailure(`the upstream failed while building: ${message}`, 'UPSTREAM_UNAVAILABLE');
    }
    throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${message}`);
  }
  return { txBytes: toBase64(txBytes), gas: gas.map((g) => ({ ...g })), inputObjects: inputObjects(txBytes, gas) };
}

const ids = (value: unknown) => (value as string[]).map(String);
const amountArgs = (tx: Transaction, amounts: bigint[]) => amounts.map((a) => tx.pure.u64(a));

/** Move a list of coins into the first one, return it. */
function mergedCoin(tx: Transaction, coins: string[]): TransactionObjectArgument {
  const [first, ...rest] = coins;
  if (!first) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: input_coins is empty');
  const primary = tx.object(first);
  if (rest.length) tx.mergeCoins(primary, rest.map((id) => tx.object(id)));
  return primary;
}

function payTo(tx: Transaction, coin: TransactionObjectArgument, recipients: string[], amounts: bigint[]): void {
  if (recipients.length !== amounts.length) {
    throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: recipients and amounts must have the same length');
  }
  if (recipients.length === 0) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: recipients is empty');
  const split = tx.splitCoins(coin, amountArgs(tx, amounts));
  recipients.forEach((recipient, i) => tx.transferObjects([split[i]!], normalizeSuiAddress(recipient)));
}

type Signature = Awaited<ReturnType<JsonRpcContext['upstream']['grpc']['core']['getMoveFunction']>>['function'];
type Body = Signature['parameters'][number]['body'];
const PRIMITIVES = new Set(['u8', 'u16', 'u32', 'u64', 'u128', 'u256', 'bool', 'address']);

async function moveFunction(context: JsonRpcContext, pkg: string, module: string, fn: string): Promise<Signature> {
  try {
    // The SDK's core API takes no call options: the attempt's deadline goes as the client's default.
    const { function: signature } = await context.upstream.call('GetFunction', (options) =>
      context.upstream.grpcWithDeadline(typeof options.timeout === 'number' ? options.timeout : undefined).core
        .getMoveFunction({ packageId: normalizeSuiAddress(pkg), moduleName: module, name: fn }), { idempotent: true });
    return signature;
  } catch (error) {
    if ((error as { kind?: string }).kind === 'not_found' || (error as { kind?: string }).kind === 'invalid_argument') {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: function ${pkg}::${module}::${fn} not found`, { code: 'NOT_FOUND' });
    }
    throw error;
  }
}

/**
 * A `SuiJsonValue` encoded by the called function's parameter type, as a node does: primitives,
 * vectors of them and strings as pure values, anything else (objects, generics) as an object id.
 */
function typedArgument(tx: Transaction, body: Body, value: unknown): TransactionObjectArgument | ReturnType<Transaction['pure']['u64']> {
  const kind = body.$kind;
  if (PRIMITIVES.has(kind)) return tx.pure(kind as 'u64', value as never);
  if (kind === 'vector' && PRIMITIVES.has(body.vector.$kind)) return tx.pure.vector(body.vector.$kind as 'u64', value as never);
  if (kind === 'datatype' && /^0x0*1::(string|ascii)::String$/.test(body.datatype.typeName)) return tx.pure.string(String(value));
  if (kind === 'datatype' && /^0x0*2::object::ID$/.test(body.datatype.typeName)) return tx.pure.id(String(value));
  return tx.object(String(value));
}

function isTxContext(body: Body): boolean {
  return body.$kind === 'datatype' && /^0x0*2::tx_context::TxContext$/.test(body.datatype.typeName);
}

function typedArguments(tx: Transaction, signature: Signature, values: unknown[]) {
  const params = signature.parameters.filter((p) => !isTxContext(p.body));
  if (params.length !== values.length) {
    throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: expected ${params.length} arguments, got ${values.length}`);
  }
  return params.map((p, i) => typedArgument(tx, p.body, values[i]));
}

type Builder = (params: Readonly<Record<string, unknown>>) => BuildPlan;

function builder(name: string, translatesTo: string, plan: Builder): JsonRpcMethod {
  return { name, translatesTo: `SDK Transaction (${translatesTo}), inputs resolved over gRPC v2`, handle: (params, context) => build(context, plan(params)) };
}

const gasOf = (params: Readonly<Record<string, unknown>>) => (params.gas ? [String(params.gas)] : undefined);
const budgetOf = (params: Readonly<Record<string, unknown>>) => u64Param(params.gas_budget, 'gas_budget');

const transferObject = builder('unsafe_transferObject', 'TransferObjects', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params), inputs: [String(params.object_id)],
  compose: (tx) => tx.transferObjects([tx.object(String(params.object_id))], normalizeSuiAddress(String(params.recipient))),
}));

const transferSui = builder('unsafe_transferSui', 'SplitCoins from the gas coin + TransferObjects, or the whole gas coin', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: [String(params.sui_object_id)], inputs: [],
  compose: (tx) => {
    const recipient = normalizeSuiAddress(String(params.recipient));
    if (params.amount === undefined || params.amount === null) tx.transferObjects([tx.gas], recipient);
    else tx.transferObjects([tx.splitCoins(tx.gas, [tx.pure.u64(u64Param(params.amount, 'amount'))])[0]!], recipient);
  },
}));

const pay = builder('unsafe_pay', 'MergeCoins + SplitCoins + TransferObjects', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params), inputs: ids(params.input_coins),
  compose: (tx) => {
    const coins = ids(params.input_coins);
    if (params.gas && coins.map((c) => normalizeSuiAddress(c)).includes(normalizeSuiAddress(String(params.gas)))) {
      throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: the gas object cannot be one of input_coins');
    }
    payTo(tx, mergedCoin(tx, coins), ids(params.recipients), (params.amounts as unknown[]).map((a) => u64Param(a, 'amounts')));
  },
}));

const paySui = builder('unsafe_paySui', 'input coins as gas + SplitCoins + TransferObjects', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: ids(params.input_coins), inputs: [],
  compose: (tx) => payTo(tx, tx.gas, ids(params.recipients), (params.amounts as unknown[]).map((a) => u64Param(a, 'amounts'))),
}));

const payAllSui = builder('unsafe_payAllSui', 'input coins as gas + TransferObjects(gas)', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: ids(params.input_coins), inputs: [],
  compose: (tx) => tx.transferObjects([tx.gas], normalizeSuiAddress(String(params.recipient))),
}));

const splitCoin = builder('unsafe_splitCoin', 'SplitCoins + TransferObjects to the signer', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params), inputs: [String(params.coin_object_id)],
  compose: (tx) => {
    const amounts = (params.split_amounts as unknown[]).map((a) => u64Param(a, 'split_amounts'));
    if (amounts.length === 0) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: split_amounts is empty');
    const split = tx.splitCoins(tx.object(String(params.coin_object_id)), amountArgs(tx, amounts));
    tx.transferObjects(amounts.map((_, i) => split[i]!), normalizeSuiAddress(String(params.signer)));
  },
}));

const splitCoinEqual = builder('unsafe_splitCoinEqual', 'SplitCoins of equal parts + TransferObjects to the signer', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params), inputs: [String(params.coin_object_id)],
  compose: (tx) => {
    const count = u64Param(params.split_count, 'split_count');
    if (count < 2n || count > 512n) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: split_count must be between 2 and 512');
    // 0x2::pay::divide_and_keep<T>(coin, n) needs the coin's type; the node's equal split is this Move call.
    tx.moveCall({ target: '0x2::pay::divide_and_keep', typeArguments: [String(params.__coinType)], arguments: [tx.object(String(params.coin_object_id)), tx.pure.u64(count)] });
  },
}));

const mergeCoins = builder('unsafe_mergeCoins', 'MergeCoins', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params), inputs: [String(params.primary_coin), String(params.coin_to_merge)],
  compose: (tx) => tx.mergeCoins(tx.object(String(params.primary_coin)), [tx.object(String(params.coin_to_merge))]),
}));

/**
 * The arguments of a Move call that may be objects: every id-shaped string, in vectors too.
 * None of them may be picked as gas (an address passed as a pure value only narrows the choice).
 */
function idsAmong(args: readonly unknown[]): string[] {
  return args.flatMap((arg) => (Array.isArray(arg) ? idsAmong(arg) : typeof arg === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(arg) ? [arg] : []));
}

const moveCall = builder('unsafe_moveCall', 'MoveCall; SuiJsonValue arguments typed by the function signature', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params),
  inputs: idsAmong(params.arguments as unknown[]),
  compose: (tx) => {
    tx.moveCall({
      package: normalizeSuiAddress(String(params.package_object_id)), module: String(params.module), function: String(params.function),
      typeArguments: (params.type_arguments as unknown[]).map(String),
      // Raw values: the SDK encodes each by the function's parameter type (objects by id), as a node does.
      arguments: typedArguments(tx, params.__signature as Signature, params.arguments as unknown[]),
    });
  },
}));

const publish = builder('unsafe_publish', 'Publish + TransferObjects(UpgradeCap) to the sender', (params) => ({
  signer: String(params.sender), budget: budgetOf(params), gas: gasOf(params), inputs: [],
  compose: (tx) => {
    const cap = tx.publish({ modules: (params.compiled_modules as unknown[]).map(String), dependencies: ids(params.dependencies).map((d) => normalizeSuiAddress(d)) });
    tx.transferObjects([cap], normalizeSuiAddress(String(params.sender)));
  },
}));

const requestAddStake = builder('unsafe_requestAddStake', 'MergeCoins + SplitCoins + 0x3::sui_system::request_add_stake', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params), inputs: ids(params.coins), refs: ids(params.coins), offline: true,
  compose: (tx, refs) => {
    const [first, ...rest] = ids(params.coins).map((id) => tx.objectRef(refs.get(normalizeSuiAddress(id))!));
    if (!first) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: coins is empty');
    if (rest.length) tx.mergeCoins(first, rest);
    let coin: TransactionObjectArgument = first;
    if (params.amount !== undefined && params.amount !== null) coin = tx.splitCoins(coin, [tx.pure.u64(u64Param(params.amount, 'amount'))])[0]!;
    tx.moveCall({ target: '0x3::sui_system::request_add_stake', arguments: [tx.sharedObjectRef(SYSTEM_STATE), coin, tx.pure.address(normalizeSuiAddress(String(params.validator)))] });
  },
}));

const requestWithdrawStake = builder('unsafe_requestWithdrawStake', '0x3::sui_system::request_withdraw_stake', (params) => ({
  signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params), inputs: [String(params.staked_sui)], refs: [String(params.staked_sui)], offline: true,
  compose: (tx, refs) => tx.moveCall({
    target: '0x3::sui_system::request_withdraw_stake',
    arguments: [tx.sharedObjectRef(SYSTEM_STATE), tx.objectRef(refs.get(normalizeSuiAddress(String(params.staked_sui)))!)],
  }),
}));

interface BatchItem {
  transferObjectRequestParams?: { objectId: string; recipient: string };
  moveCallRequestParams?: { packageObjectId: string; module: string; function: string; typeArguments: string[]; arguments: unknown[] };
}

const batchTransaction = builder('unsafe_batchTransaction', 'one PTB of TransferObjects and MoveCall commands', (params) => {
  const items = params.single_transaction_params as BatchItem[];
  return {
    signer: String(params.signer), budget: budgetOf(params), gas: gasOf(params),
    inputs: items.flatMap((item) => {
      if (item.transferObjectRequestParams) return [item.transferObjectRequestParams.objectId];
      return item.moveCallRequestParams ? idsAmong(item.moveCallRequestParams.arguments ?? []) : [];
    }),
    compose: (tx) => {
      if (items.length === 0) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, 'Invalid params: single_transaction_params is empty');
      for (const item of items) {
        if (item.transferObjectRequestParams) {
          const t = item.transferObjectRequestParams;
          tx.transferObjects([tx.object(t.objectId)], normalizeSuiAddress(t.recipient));
        } else if (item.moveCallRequestParams) {
          const m = item.moveCallRequestParams;
          tx.moveCall({
            package: normalizeSuiAddress(m.packageObjectId), module: m.module, function: m.function,
            typeArguments: (m.typeArguments ?? []).map(String),
            arguments: typedArguments(tx, (params.__signatures as Signature[])[items.indexOf(item)]!, m.arguments ?? []),
          });
        }
      }
    },
  };
});

/** unsafe_splitCoinEqual needs the coin's type for its Move call: read it first. */
const splitCoinEqualTyped: JsonRpcMethod = {
  ...splitCoinEqual,
  async handle(params, context) {
    const id = String(params.coin_object_id);
    const { response } = await context.upstream.call('GetObject', (o) =>
      context.upstream.grpc.ledgerService.getObject({ objectId: id, readMask: { paths: ['object_type'] } }, o), { idempotent: true });
    const type = response.object?.objectType ?? '';
    const match = /^0x0*2::coin::Coin<(.+)>$/.exec(type);
    if (!match) throw new JsonRpcError(JSONRPC_ERROR.invalidParams, `Invalid params: ${id} is not a coin`);
    return splitCoinEqual.handle({ ...params, __coinType: match[1] }, context);
  },
};

/** unsafe_moveCall and unsafe_batchTransaction read the called functions' signatures first. */
const moveCallTyped: JsonRpcMethod = {
  ...moveCall,
  async handle(params, context) {
    const signature = await moveFunction(context, String(params.package_object_id), String(params.module), String(params.function));
    return moveCall.handle({ ...params, __signature: signature }, context);
  },
};

const batchTransactionTyped: JsonRpcMethod = {
  ...batchTransaction,
  async handle(params, context) {
    const items = params.single_transaction_params as BatchItem[];
    const signatures = await Promise.all(items.map((item) => item.moveCallRequestParams
      ? moveFunction(context, item.moveCallRequestParams.packageObjectId, item.moveCallRequestParams.module, item.moveCallRequestParams.function)
      : undefined));
    return batchTransaction.handle({ ...params, __signatures: signatures }, context);
  },
};

export const BUILDER_METHODS: readonly JsonRpcMethod[] = [
  transferObject, transferSui, pay, paySui, payAllSui, splitCoin, splitCoinEqualTyped, mergeCoins, moveCallTyped, publish,
  requestAddStake, requestWithdrawStake, batchTransactionTyped,
];
