import { normalizeSuiAddress } from '@mysten/sui/utils';
import { CATALOG } from '../ledger/catalog.js';
import { allowanceHandlers } from './allowance-calls.js';
import { billingHandlers } from './billing-calls.js';
import type { CallContext, Handler, MoveCallInput } from './call-context.js';
import { F } from './call-context.js';
import { ExecutionFailed, abort } from './failure.js';
import { balanceHandlers, coinHandlers, payHandlers, transferHandlers } from './framework-calls.js';
import { collectibleHandlers, dexHandlers, lendingHandlers } from './protocol-calls.js';
import type { Value } from './values.js';

export type { CallContext, EmittedEvent, MoveCallInput } from './call-context.js';
export { ALLOWANCE_ABORTS } from './allowance-calls.js';
export { BILLING_ABORTS } from './billing-calls.js';

const HANDLERS: Record<string, Record<string, Record<string, Handler>>> = {
  [F]: { coin: coinHandlers, balance: balanceHandlers, pay: payHandlers, transfer: transferHandlers, allowance: allowanceHandlers },
  [CATALOG.dexPackage]: { pool: dexHandlers },
  [CATALOG.lendingPackage]: { lending: lendingHandlers },
  [CATALOG.nftPackage]: { collectible: collectibleHandlers },
  [CATALOG.billingPackage]: { billing: billingHandlers },
};

/**
 * Runs a supported Move call. Functions simnet does not model abort (as if the module aborted),
 * and functions that do not exist fail with FunctionNotFound; neither crashes the executor.
 */
export function executeMoveCall(call: MoveCallInput, context: CallContext): Value[] {
  const packageId = normalizeSuiAddress(call.packageId);
  const handler = HANDLERS[packageId]?.[call.module]?.[call.function];
  if (handler) return handler(call, context);
  const pkg = context.set.ledger.getPackage(packageId);
  const exists = pkg?.modules.some((module) => module.name === call.module && module.functions.some((fn) => fn.name === call.function));
  if (!exists) throw new ExecutionFailed({ kind: 'functionNotFound', command: context.command, description: `function ${packageId}::${call.module}::${call.function} not found` });
  throw abort(context.command, packageId, call.module, call.function, 0n, `simnet does not execute ${packageId}::${call.module}::${call.function}`);
}
