import { bcs } from '@mysten/sui/bcs';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import type { ExecutionFailure, GasCostSummaryRecord, Ledger, ObjectRecord, SignatureRecord } from '../ledger/index.js';
import { SUI_COIN_TYPE } from '../ledger/constants.js';
import { suiDigest } from '../ledger/hashing.js';
import { parseCoinReservation, suiAccumulatorId } from './coin-reservation.js';
import { ExecutionFailed, TransactionRejected } from './failure.js';
import { GasModel } from './gas.js';
import type { CallContext } from './move-calls.js';
import { executeMoveCall } from './move-calls.js';
import type { Value } from './values.js';
import { decodeAddress, decodeU64 } from './values.js';
import { WorkingSet } from './working-set.js';
import type { WorkingObject } from './working-set.js';
import { buildOutcome } from './outcome.js';
import type { ExecutionOutcome } from './outcome.js';
import { ENVELOPE_NONCES, MOCK_GAS_BALANCE, MOCK_GAS_ID, encodeWorkingObject, key } from './run-state.js';
import type { ParsedData, RunState } from './run-state.js';

export { applyOutcome } from './outcome.js';
export type { ExecutionOutcome } from './outcome.js';

type ParsedArgument = ReturnType<typeof bcs.Argument.parse>;
type ParsedCommand = ReturnType<typeof bcs.Command.parse>;

export interface ExecutionOptions {
  /** Ownership, version, expiration and gas-price checks (off for kind-only simulation). */
  readonly checks: boolean;
  /** Pay gas with a mock coin when the transaction names no gas payment (simulation only). */
  readonly mockGas?: boolean;
  readonly signatures?: readonly SignatureRecord[];
}

export class Executor {
  readonly #ledger: Ledger;
  readonly #gas: GasModel;

  constructor(ledger: Ledger) {
    this.#ledger = ledger;
    this.#gas = new GasModel(ledger.protocolConfig());
  }

  /** Executes without writing anything. Throws {@link TransactionRejected} for invalid transactions. */
  execute(txBcs: Uint8Array, options: ExecutionOptions): ExecutionOutcome {
    let data: ParsedData;
    try {
      data = bcs.TransactionData.parse(txBcs).V1;
    } catch {
      throw new TransactionRejected('transaction bytes are not a valid TransactionData');
    }
    if (data.kind.$kind !== 'ProgrammableTransaction') throw new TransactionRejected('only programmable transactions can be executed');
    const digest = suiDigest('TransactionData', txBcs);
    const sender = normalizeSuiAddress(data.sender);
    const gasOwner = normalizeSuiAddress(data.gasData.owner);
    const price = BigInt(data.gasData.price);
    const budget = BigInt(data.gasData.budget);
    const program = data.kind.ProgrammableTransaction;
    if (options.checks) this.#validate(data, price, budget);

    const base = () => this.#prepare(digest, data, sender, gasOwner, budget, options);
    const reverted = () => {
      const fresh = base();
      this.#settleMaterializedGas(fresh);
      return fresh;
    };
    let state = base();
    const startingGas = state.gasCoin?.coin?.balance ?? 0n;
    let failure: ExecutionFailure | undefined;
    try {
      this.#run(state, program.commands, sender);
      this.#settleMaterializedGas(state);
      this.#checkNoDanglingValues(state);
    } catch (error) {
      if (!(error instanceof ExecutionFailed)) throw error;
      failure = error.failure;
    }
    const gasCoinSpend = failure ? 0n : startingGas - (state.gasCoin?.coin?.balance ?? 0n);
    const units = this.#gas.computationUnits(program.commands.length, program.inputs.length, program.commands.filter((command) => command.$kind === 'MoveCall').length);
    let computation = units * price;
    if (failure) state = reverted();
    let gasUsed = this.#gasUsed(state, digest, computation);
    if (!failure && GasModel.charged(gasUsed) > budget) {
      failure = { kind: 'insufficientGas', description: 'insufficient gas' };
      state = reverted();
      gasUsed = this.#gasUsed(state, digest, computation);
    }
    if (failure && GasModel.charged(gasUsed) > budget) {
      // Out of gas: the whole budget is spent, storage first.
      const storageNet = gasUsed.storageCost - gasUsed.storageRebate;
      computation = budget > storageNet ? budget - storageNet : 0n;
      gasUsed = { ...gasUsed, computationCost: computation < budget ? computation : budget };
    }
    this.#chargeGas(state, gasOwner, GasModel.net(gasUsed));
    return buildOutcome(this.#ledger, this.#gas, { state, data, txBcs, digest, sender, gasOwner, price, budget, gasUsed, failure, signatures: options.signatures ?? [], gasCoinSpend });
  }

  #validate(data: ParsedData, price: bigint, budget: bigint): void {
    const rgp = this.#ledger.referenceGasPrice();
    if (price < rgp) throw new TransactionRejected(`gas price ${price} is below the reference gas price ${rgp}`);
    if (budget > this.#gas.maxTxGas) throw new TransactionRejected(`gas budget ${budget} is above the maximum ${this.#gas.maxTxGas}`);
    if (budget < price * 1000n) throw new TransactionRejected(`gas budget ${budget} is below the minimum ${price * 1000n}`);
    const epoch = this.#ledger.currentEpoch().epoch;
    const expiration = data.expiration;
    if (expiration.$kind === 'Epoch' && BigInt(expiration.Epoch) < epoch) throw new TransactionRejected('transaction expired');
    if (expiration.$kind === 'ValidDuring' || expiration.$kind === 'Validity') {
      const validity = expiration.$kind === 'ValidDuring' ? expiration.ValidDuring : expiration.Validity;
      if (validity.maxEpoch != null && BigInt(validity.maxEpoch) < epoch) throw new TransactionRejected('transaction expired');
      if (validity.minEpoch != null && BigInt(validity.minEpoch) > epoch) throw new TransactionRejected('transaction is not yet valid');
      if (validity.chain && validity.chain !== this.#ledger.chainId) throw new TransactionRejected('transaction is for another chain');
    }
  }

  /** Loads gas and inputs into a fresh working set (also the starting point after a failure). */
  #prepare(digest: string, data: ParsedData, sender: string, gasOwner: string, budget: bigint, options: ExecutionOptions): RunState {
    const set = new WorkingSet(this.#ledger, digest);
    const state: RunState = { set, inputs: [], events: [], addressDeltas: new Map(), allowanceUpdates: new Map(), moveCalls: [], readOnlyInputs: [], objectSizes: new Map() };
    const payment = data.gasData.payment;
    const reserved = new Map<string, bigint>();
    if (payment.some((ref) => parseCoinReservation(ref, this.#ledger.chainId) !== undefined)) {
      this.#payWithReservations(state, data, sender, gasOwner, budget, options, reserved);
    } else if (payment.length > 0) {
      const coins = payment.map((ref) => set.load(this.#ownedInput(ref, gasOwner, options.checks, 'gas'), false));
      for (const coin of coins) if (coin.coin?.coinType !== SUI_COIN_TYPE) throw new TransactionRejected(`gas object ${coin.id} is not a SUI coin`);
      const [primary, ...rest] = coins;
      for (const coin of rest) {
        primary!.coin!.balance += coin.coin!.balance;
        coin.deleted = true;
      }
      if (options.checks && primary!.coin!.balance < budget) throw new TransactionRejected(`gas balance ${primary!.coin!.balance} is below the gas budget ${budget}`);
      state.gasCoin = primary;
    } else if (options.mockGas) {
      state.gasCoin = { id: MOCK_GAS_ID, type: '', coin: { coinType: SUI_COIN_TYPE, balance: MOCK_GAS_BALANCE }, deleted: false, readOnly: false, hasPublicTransfer: true, owner: { kind: 'address', address: gasOwner } };
      set.objects.set(MOCK_GAS_ID, state.gasCoin);
    } else {
      const available = this.#ledger.getBalance(gasOwner, SUI_COIN_TYPE).addressBalance;
      if (available < budget) throw new TransactionRejected(`address balance ${available} is below the gas budget ${budget}`);
    }
    for (const input of (data.kind as Extract<ParsedData['kind'], { $kind: 'ProgrammableTransaction' }>).ProgrammableTransaction.inputs) {
      state.inputs.push(this.#input(state, input, sender, options.checks, reserved));
    }
    return state;
  }

  /**
   * A gas payment holding coin reservations, as a node treats it (sui-core
   * `rewrite_transaction_for_coin_reservations` and gas smashing): each reservation must be for
   * this epoch, non-zero, of the sender's own SUI address balance, and together within it. When a
   * real coin comes first it is the gas coin and the reserved funds join it; when a reservation
   * comes first gas is charged to the address balance, the real coins in the list are smashed into
   * it, and `GasCoin` is a coin materialized from the reserved funds less the budget, whatever is
   * left of it going back to the address balance at the end.
   */
  #payWithReservations(state: RunState, data: ParsedData, sender: string, gasOwner: string, budget: bigint, options: ExecutionOptions, reserved: Map<string, bigint>): void {
    const epoch = this.#ledger.currentEpoch().epoch;
    const accumulator = suiAccumulatorId(sender);
    let reservedTotal = 0n;
    const coins: WorkingObject[] = [];
    for (const ref of data.gasData.payment) {
      const reservation = parseCoinReservation(ref, this.#ledger.chainId);
      if (!reservation) {
        const coin = state.set.load(this.#ownedInput(ref, gasOwner, options.checks, 'gas'), false);
        if (coin.coin?.coinType !== SUI_COIN_TYPE) throw new TransactionRejected(`gas object ${coin.id} is not a SUI coin`);
        coins.push(coin);
        continue;
      }
      if (gasOwner !== sender) throw new TransactionRejected('a coin reservation can only pay gas for its own sender, not a sponsor');
      if (reservation.accumulatorId !== accumulator) throw new TransactionRejected(`gas object ${normalizeSuiAddress(ref.objectId)} does not exist`);
      if (reservation.epoch !== epoch) throw new TransactionRejected('transaction expired');
      if (reservation.amount === 0n) throw new TransactionRejected('coin reservation amount must be non-zero');
      reservedTotal += reservation.amount;
    }
    reserved.set(key(sender, SUI_COIN_TYPE), reservedTotal);
    const available = this.#ledger.getBalance(sender, SUI_COIN_TYPE).addressBalance;
    if (available < reservedTotal) throw new TransactionRejected(`insufficient address balance: ${available} is below the reserved ${reservedTotal}`);
    const withdraw = (amount: bigint) => state.addressDeltas.set(key(sender, SUI_COIN_TYPE), (state.addressDeltas.get(key(sender, SUI_COIN_TYPE)) ?? 0n) - amount);
    const firstIsCoin = parseCoinReservation(data.gasData.payment[0]!, this.#ledger.chainId) === undefined;
    if (firstIsCoin) {
      const [primary, ...rest] = coins;
      for (const coin of rest) {
        primary!.coin!.balance += coin.coin!.balance;
        coin.deleted = true;
      }
      primary!.coin!.balance += reservedTotal;
      withdraw(reservedTotal);
      if (options.checks && primary!.coin!.balance < budget) throw new TransactionRejected(`gas balance ${primary!.coin!.balance} is below the gas budget ${budget}`);
      state.gasCoin = primary;
      return;
    }
    for (const coin of coins) {
      withdraw(-coin.coin!.balance);
      coin.deleted = true;
    }
    const total = reservedTotal + coins.reduce((sum, coin) => sum + coin.coin!.balance, 0n);
    if (options.checks && total < budget) throw new TransactionRejected(`gas balance ${total} is below the gas budget ${budget}`);
    const amount = reservedTotal > budget ? reservedTotal - budget : 0n;
    withdraw(amount);
    const coin = state.set.createCoin(SUI_COIN_TYPE, amount);
    state.materializedGas = { coin, owner: sender };
  }

  /** A materialized gas coin not sent anywhere nor consumed goes back to the address balance. */
  #settleMaterializedGas(state: RunState): void {
    const materialized = state.materializedGas;
    if (!materialized || materialized.coin.deleted || materialized.coin.owner) return;
    materialized.coin.deleted = true;
    const k = key(materialized.owner, SUI_COIN_TYPE);
    state.addressDeltas.set(k, (state.addressDeltas.get(k) ?? 0n) + materialized.coin.coin!.balance);
  }

  #ownedInput(ref: { objectId: string; version: string; digest: string }, owner: string, checks: boolean, what: string): ObjectRecord {
    const id = normalizeSuiAddress(ref.objectId);
    const record = this.#ledger.getObject(id);
    if (!record) throw new TransactionRejected(`${what} object ${id} does not exist`);
    if (checks) {
      if (record.version !== BigInt(ref.version) || record.digest !== ref.digest) {
        throw new TransactionRejected(`object ${id} version ${ref.version} is not available for consumption; current version is ${record.version}`);
      }
      if (record.owner.kind === 'address' && record.owner.address !== owner) throw new TransactionRejected(`object ${id} is not owned by ${owner}`);
      if (record.owner.kind === 'object' || record.owner.kind === 'shared') throw new TransactionRejected(`object ${id} cannot be used as an owned input`);
    }
    return record;
  }

  #input(state: RunState, input: ReturnType<typeof bcs.CallArg.parse>, sender: string, checks: boolean, reserved: Map<string, bigint>): Value {
    switch (input.$kind) {
      case 'Pure':
        return { kind: 'pure', bytes: Buffer.from(input.Pure.bytes, 'base64') };
      case 'Object': {
        const arg = input.Object;
        if (arg.$kind === 'ImmOrOwnedObject') {
          const record = this.#ownedInput(arg.ImmOrOwnedObject, sender, checks, 'input');
          if (state.gasCoin && record.objectId === state.gasCoin.id) throw new TransactionRejected('the gas coin cannot also be an input');
          const readOnly = record.owner.kind === 'immutable';
          if (readOnly) state.readOnlyInputs.push(record.objectId);
          return { kind: 'object', id: state.set.load(record, readOnly).id };
        }
        if (arg.$kind === 'SharedObject') {
          const id = normalizeSuiAddress(arg.SharedObject.objectId);
          const record = this.#ledger.getObject(id);
          if (!record || record.owner.kind !== 'shared') throw new TransactionRejected(`shared object ${id} does not exist`);
          if (!arg.SharedObject.mutable) state.readOnlyInputs.push(id);
          return { kind: 'object', id: state.set.load(record, !arg.SharedObject.mutable).id };
        }
        throw new TransactionRejected('receiving objects are not supported by simnet');
      }
      case 'FundsWithdrawal': {
        const withdrawal = input.FundsWithdrawal;
        const coinType = normalizeStructTag(withdrawal.typeArg.Balance);
        const amount = BigInt(withdrawal.reservation.MaxAmountU64);
        const from = withdrawal.withdrawFrom;
        let owner = sender;
        let allowanceId: string | undefined;
        if (from.$kind === 'SenderAllowance') {
          owner = normalizeSuiAddress(from.SenderAllowance.funder);
          allowanceId = normalizeSuiAddress(from.SenderAllowance.allowance);
        } else if (from.$kind === 'Sponsor') {
          throw new TransactionRejected('sponsor withdrawals are not supported by simnet');
        }
        const total = (reserved.get(key(owner, coinType)) ?? 0n) + amount;
        reserved.set(key(owner, coinType), total);
        if (checks && this.#ledger.getBalance(owner, coinType).addressBalance < total) throw new TransactionRejected(`insufficient address balance of ${coinType} for the withdrawal reservation`);
        return { kind: 'withdrawal', coinType, amount, owner, allowanceId };
      }
    }
  }

  #run(state: RunState, commands: readonly ParsedCommand[], sender: string): void {
    const results: Value[][] = [];
    const nowMs = this.#ledger.nowMs();
    commands.forEach((command, index) => {
      const context = this.#context(state, sender, index, nowMs);
      results.push(this.#command(state, command, index, results, context));
    });
  }

  #context(state: RunState, sender: string, command: number, nowMs: bigint): CallContext {
    const ledger = this.#ledger;
    return {
      sender,
      command,
      set: state.set,
      nowMs,
      emit: (event) => state.events.push(event),
      depositToAddress: (owner, coinType, amount) => {
        const k = key(normalizeSuiAddress(owner), normalizeStructTag(coinType));
        state.addressDeltas.set(k, (state.addressDeltas.get(k) ?? 0n) + amount);
      },
      withdrawFromAddress: (owner, coinType, amount) => {
        const k = key(owner, coinType);
        const next = (state.addressDeltas.get(k) ?? 0n) - amount;
        if (ledger.getBalance(owner, coinType).addressBalance + next < 0n) throw new ExecutionFailed({ kind: 'insufficientFundsForWithdraw', command, description: 'insufficient funds for withdraw' });
        state.addressDeltas.set(k, next);
      },
      updateAllowance: (record) => state.allowanceUpdates.set(record.objectId, record),
      allowance: (id) => state.allowanceUpdates.get(id) ?? ledger.getAllowance(id),
      nextNonce: () => {
        const nonce = (ENVELOPE_NONCES.get(ledger) ?? 0n) + 1n;
        ENVELOPE_NONCES.set(ledger, nonce);
        return nonce;
      },
    };
  }

  #argument(state: RunState, argument: ParsedArgument, results: Value[][], command: number): Value {
    const fail = (why: string) => new ExecutionFailed({ kind: 'commandArgumentError', command, argument: 0, description: why });
    switch (argument.$kind) {
      case 'GasCoin': {
        const gas = state.gasCoin ?? state.materializedGas?.coin;
        if (!gas) throw fail('no gas coin: gas is paid from the address balance');
        return { kind: 'object', id: gas.id };
      }
      case 'Input': {
        const value = state.inputs[argument.Input];
        if (!value) throw fail(`input ${argument.Input} out of bounds`);
        return value;
      }
      case 'Result': {
        const values = results[argument.Result];
        if (!values || values.length !== 1) throw fail(`result ${argument.Result} is not a single value`);
        return values[0]!;
      }
      case 'NestedResult': {
        const value = results[argument.NestedResult[0]]?.[argument.NestedResult[1]];
        if (!value) throw fail(`result ${argument.NestedResult[0]}.${argument.NestedResult[1]} out of bounds`);
        return value;
      }
    }
  }

  #objectArgument(state: RunState, value: Value, command: number, argument: number): WorkingObject {
    if (value.kind !== 'object') throw new ExecutionFailed({ kind: 'commandArgumentError', command, argument, description: 'expected an object' });
    const object = state.set.objects.get(value.id);
    if (!object || object.deleted) throw new ExecutionFailed({ kind: 'commandArgumentError', command, argument, description: 'object was already moved' });
    return object;
  }

  #command(state: RunState, command: ParsedCommand, index: number, results: Value[][], context: CallContext): Value[] {
    const arg = (argument: ParsedArgument) => this.#argument(state, argument, results, index);
    const failArg = (argument: number, why: string) => new ExecutionFailed({ kind: 'commandArgumentError', command: index, argument, description: why });
    switch (command.$kind) {
      case 'SplitCoins': {
        const coin = this.#objectArgument(state, arg(command.SplitCoins.coin), index, 0);
        if (!coin.coin) throw failArg(0, 'SplitCoins expects a coin');
        return command.SplitCoins.amounts.map((amountArgument, position) => {
          let amount: bigint;
          try {
            amount = decodeU64(arg(amountArgument));
          } catch {
            throw failArg(position + 1, 'expected a u64 amount');
          }
          if (coin.coin!.balance < amount) throw new ExecutionFailed({ kind: 'insufficientCoinBalance', command: index, description: `insufficient coin balance: ${coin.coin!.balance} < ${amount}` });
          coin.coin!.balance -= amount;
          return { kind: 'object', id: state.set.createCoin(coin.coin!.coinType, amount).id } as Value;
        });
      }
      case 'MergeCoins': {
        const target = this.#objectArgument(state, arg(command.MergeCoins.destination), index, 0);
        if (!target.coin) throw failArg(0, 'MergeCoins expects coins');
        command.MergeCoins.sources.forEach((sourceArgument, position) => {
          if (sourceArgument.$kind === 'GasCoin') throw failArg(position + 1, 'the gas coin cannot be merged into another coin');
          const source = this.#objectArgument(state, arg(sourceArgument), index, position + 1);
          if (source.coin?.coinType !== target.coin!.coinType || source.id === target.id) throw failArg(position + 1, 'MergeCoins sources must be distinct coins of the same type');
          target.coin!.balance += source.coin.balance;
          source.deleted = true;
        });
        return [];
      }
      case 'TransferObjects': {
        let recipient: string;
        try {
          recipient = decodeAddress(arg(command.TransferObjects.address));
        } catch {
          throw failArg(command.TransferObjects.objects.length, 'expected an address');
        }
        command.TransferObjects.objects.forEach((objectArgument, position) => {
          const object = this.#objectArgument(state, arg(objectArgument), index, position);
          if (object.readOnly || (object.owner && object.owner.kind !== 'address')) throw failArg(position, 'object cannot be transferred');
          if (!object.hasPublicTransfer) throw failArg(position, 'object does not have store');
          object.owner = { kind: 'address', address: recipient };
        });
        return [];
      }
      case 'MakeMoveVec':
        return [{ kind: 'vector', items: command.MakeMoveVec.elements.map(arg) }];
      case 'MoveCall': {
        const call = command.MoveCall;
        state.moveCalls.push({ package: normalizeSuiAddress(call.package), module: call.module, function: call.function });
        return executeMoveCall({ packageId: call.package, module: call.module, function: call.function, typeArguments: call.typeArguments, arguments: call.arguments.map(arg) }, context);
      }
      case 'Publish':
      case 'Upgrade':
        throw new ExecutionFailed({ kind: 'featureNotYetSupported', command: index, description: 'simnet does not publish or upgrade packages' });
    }
  }

  /** New objects must end up owned and balances consumed, as Move's linearity demands. */
  #checkNoDanglingValues(state: RunState): void {
    for (const object of state.set.objects.values()) {
      if (!object.original && !object.deleted && !object.owner) {
        throw new ExecutionFailed({ kind: 'commandArgumentError', description: `unused value without drop: new object ${object.id} was not transferred` });
      }
    }
  }

  #gasUsed(state: RunState, digest: string, computationCost: bigint): GasCostSummaryRecord {
    let storage = 0n;
    let rebated = 0n;
    for (const object of state.set.objects.values()) {
      if (object.id === MOCK_GAS_ID || object.readOnly) continue;
      if (object.original) rebated += object.original.storageRebate;
      if (object.deleted || !object.owner) continue;
      // An object's BCS size does not depend on its version or rebate (fixed-width u64s).
      const size = encodeWorkingObject(object, 1n, digest, 0n).bcs.length;
      state.objectSizes.set(object.id, size);
      storage += this.#gas.storageCost(size);
    }
    return this.#gas.summary(computationCost, storage, rebated);
  }

  #chargeGas(state: RunState, gasOwner: string, net: bigint): void {
    if (state.gasCoin) {
      state.gasCoin.coin!.balance -= net;
      return;
    }
    const k = key(gasOwner, SUI_COIN_TYPE);
    state.addressDeltas.set(k, (state.addressDeltas.get(k) ?? 0n) - net);
  }

}
