import { normalizeStructTag } from '@mysten/sui/utils';
import type { AllowanceRecord, JsonValue } from '../ledger/index.js';
import { SUI_FRAMEWORK } from '../ledger/constants.js';
import { ExecutionFailed, abort, argumentError } from './failure.js';
import type { Value } from './values.js';
import type { WorkingObject, WorkingSet } from './working-set.js';

export interface EmittedEvent {
  readonly packageId: string;
  readonly module: string;
  readonly type: string;
  readonly contents: Uint8Array;
  readonly json: JsonValue;
}

/** What a Move call may do besides touching objects in the working set. */
export interface CallContext {
  readonly sender: string;
  readonly command: number;
  readonly set: WorkingSet;
  readonly nowMs: bigint;
  emit(event: EmittedEvent): void;
  depositToAddress(owner: string, coinType: string, amount: bigint): void;
  withdrawFromAddress(owner: string, coinType: string, amount: bigint): void;
  updateAllowance(record: AllowanceRecord): void;
  allowance(id: string): AllowanceRecord | undefined;
  /** Uniquifies envelope nonces within the ledger. */
  nextNonce(): bigint;
}

export interface MoveCallInput {
  readonly packageId: string;
  readonly module: string;
  readonly function: string;
  readonly typeArguments: readonly string[];
  readonly arguments: readonly Value[];
}

export type Handler = (call: MoveCallInput, context: CallContext) => Value[];

export const F = SUI_FRAMEWORK;

export function typeArgument(call: MoveCallInput, index: number, context: CallContext): string {
  const type = call.typeArguments[index];
  if (type === undefined) throw new ExecutionFailed({ kind: 'commandArgumentError', command: context.command, argument: index, description: `missing type argument ${index}` });
  return normalizeStructTag(type);
}

export function argument(call: MoveCallInput, index: number, context: CallContext): Value {
  const value = call.arguments[index];
  if (value === undefined) throw argumentError(context.command, index, `${call.module}::${call.function} expects more arguments`);
  return value;
}

export function coinArgument(call: MoveCallInput, index: number, context: CallContext, coinType: string): WorkingObject {
  const value = argument(call, index, context);
  if (value.kind !== 'object') throw argumentError(context.command, index, 'expected a coin');
  const object = context.set.get(value.id);
  if (!object.coin || object.coin.coinType !== coinType) throw argumentError(context.command, index, `expected Coin<${coinType}>`);
  return object;
}

export function balanceArgument(call: MoveCallInput, index: number, context: CallContext, coinType: string): Extract<Value, { kind: 'balance' }> {
  const value = argument(call, index, context);
  if (value.kind !== 'balance' || value.coinType !== coinType) throw argumentError(context.command, index, `expected Balance<${coinType}>`);
  return value;
}

export function withdrawalArgument(call: MoveCallInput, index: number, context: CallContext, coinType: string): Extract<Value, { kind: 'withdrawal' }> {
  const value = argument(call, index, context);
  if (value.kind !== 'withdrawal' || value.coinType !== coinType) throw argumentError(context.command, index, `expected Withdrawal<Balance<${coinType}>>`);
  return value;
}

export function pure<T>(call: MoveCallInput, index: number, context: CallContext, decode: (value: Value) => T): T {
  try {
    return decode(argument(call, index, context));
  } catch (error) {
    if (error instanceof ExecutionFailed) throw error;
    throw argumentError(context.command, index, (error as Error).message);
  }
}

export function consume(call: MoveCallInput, index: number, value: Value): void {
  (call.arguments as Value[])[index] = { kind: 'moved' };
  if (value.kind === 'balance') value.amount = 0n;
}

export function split(coin: WorkingObject, amount: bigint, context: CallContext, module: string): WorkingObject {
  if (coin.coin!.balance < amount) throw abort(context.command, F, module, 'split', 0n, `insufficient balance: ${coin.coin!.balance} < ${amount}`);
  coin.coin!.balance -= amount;
  return context.set.createCoin(coin.coin!.coinType, amount);
}

export function join(target: WorkingObject, source: WorkingObject, context: CallContext): void {
  if (target.id === source.id) throw argumentError(context.command, 1, 'cannot join a coin with itself');
  target.coin!.balance += source.coin!.balance;
  context.set.delete(source.id);
}

export function transferTo(object: WorkingObject, recipient: string): void {
  object.owner = { kind: 'address', address: recipient };
}
