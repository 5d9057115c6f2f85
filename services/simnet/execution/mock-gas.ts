import type { bcs } from '@mysten/sui/bcs';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import type { Ledger } from '../ledger/index.js';
import { SUI_COIN_TYPE } from '../ledger/constants.js';
import type { SimulationOptions } from './simulation-options.js';

type ParsedData = ReturnType<typeof bcs.TransactionData.parse>['V1'];
type ParsedArgument = ReturnType<typeof bcs.Argument.parse>;
type ParsedCommand = ReturnType<typeof bcs.Command.parse>;

/**
 * Whether a simulation of `data` pays gas with a mock coin, as a full node's SimulateTransaction
 * decides (sui-rpc-api `simulate/mod.rs`): without gas selection, a transaction that names no gas
 * payment runs against a mock gas coin, unless (checks enabled) its gas owner's address balance
 * would pay for it when executed. This is what lets an SDK estimate a budget by simulating with
 * `payment: []` before it has picked any coin.
 */
export function simulatesWithMockGas(ledger: Ledger, data: ParsedData, options: SimulationOptions): boolean {
  if (data.gasData.payment.length > 0) return false;
  if (options.doGasSelection && options.checks) return false;
  return !(options.checks && addressBalancePaysGas(ledger, data));
}

/** The node's `address_balance_pays_gas`: no use of the gas coin, replay protection without one, and enough balance. */
function addressBalancePaysGas(ledger: Ledger, data: ParsedData): boolean {
  if (data.kind.$kind !== 'ProgrammableTransaction') return false;
  const program = data.kind.ProgrammableTransaction;
  if (program.commands.some(usesGasCoin)) return false;
  if (!replayProtectedWithoutGasCoin(ledger, data)) return false;
  const owner = normalizeSuiAddress(data.gasData.owner);
  return availableForGas(ledger, data, owner) >= BigInt(data.gasData.budget);
}

function usesGasCoin(command: ParsedCommand): boolean {
  const isGas = (argument: ParsedArgument) => argument.$kind === 'GasCoin';
  switch (command.$kind) {
    case 'MoveCall':
      return command.MoveCall.arguments.some(isGas);
    case 'TransferObjects':
      return command.TransferObjects.objects.some(isGas) || isGas(command.TransferObjects.address);
    case 'SplitCoins':
      return isGas(command.SplitCoins.coin) || command.SplitCoins.amounts.some(isGas);
    case 'MergeCoins':
      return isGas(command.MergeCoins.destination) || command.MergeCoins.sources.some(isGas);
    case 'MakeMoveVec':
      return command.MakeMoveVec.elements.some(isGas);
    case 'Upgrade':
      return isGas(command.Upgrade.ticket);
    default:
      return false;
  }
}

/** A validity window in the expiration, or an input object owned by an address, makes the digest unique. */
function replayProtectedWithoutGasCoin(ledger: Ledger, data: ParsedData): boolean {
  if (data.expiration.$kind === 'ValidDuring' || data.expiration.$kind === 'Validity') return true;
  if (data.kind.$kind !== 'ProgrammableTransaction') return false;
  return data.kind.ProgrammableTransaction.inputs.some((input) => {
    const owned = input.$kind === 'Object' && input.Object.$kind === 'ImmOrOwnedObject' ? input.Object.ImmOrOwnedObject : undefined;
    return owned !== undefined && ledger.getObject(normalizeSuiAddress(owned.objectId))?.owner.kind === 'address';
  });
}

/** The owner's SUI address balance less the transaction's own SUI withdrawals from it. */
function availableForGas(ledger: Ledger, data: ParsedData, owner: string): bigint {
  let reserved = 0n;
  if (data.kind.$kind === 'ProgrammableTransaction') {
    for (const input of data.kind.ProgrammableTransaction.inputs) {
      if (input.$kind !== 'FundsWithdrawal') continue;
      const withdrawal = input.FundsWithdrawal;
      if (normalizeStructTag(withdrawal.typeArg.Balance) !== SUI_COIN_TYPE) continue;
      const from = withdrawal.withdrawFrom;
      const funder = from.$kind === 'SenderAllowance' ? from.SenderAllowance.funder : data.sender;
      if (normalizeSuiAddress(funder) === owner) reserved += BigInt(withdrawal.reservation.MaxAmountU64);
    }
  }
  const balance = ledger.getBalance(owner, SUI_COIN_TYPE).addressBalance;
  return balance > reserved ? balance - reserved : 0n;
}
