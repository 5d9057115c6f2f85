import { TypeTagSerializer } from '@mysten/sui/bcs';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import type {
  AllowanceRecord,
  BalanceChangeRecord,
  EventRecord,
  ExecutionFailure,
  GasCostSummaryRecord,
  Ledger,
  LedgerReader,
  ObjectChangeRecord,
  ObjectRecord,
  SignatureRecord,
  TransactionRecord,
} from '../ledger/index.js';
import { SUI_COIN_TYPE } from '../ledger/constants.js';
import { buildEffects, eventsDigest } from '../ledger/effects-encoding.js';
import type { GasModel } from './gas.js';
import { MOCK_GAS_ID, encodeWorkingObject, key } from './run-state.js';
import type { ParsedData, RunState } from './run-state.js';

/** Everything executing a transaction would change; `applyOutcome` writes it to the ledger. */
export interface ExecutionOutcome {
  readonly record: TransactionRecord;
  readonly writes: readonly ObjectRecord[];
  readonly deletes: readonly { readonly objectId: string; readonly version: bigint }[];
  readonly addressDeltas: ReadonlyMap<string, bigint>;
  readonly allowanceUpdates: readonly AllowanceRecord[];
  /** How much the gas coin(s) lost to commands (not gas), for gas selection. */
  readonly gasCoinSpend: bigint;
}

/** Turns a finished run into effects, object versions, events and balance changes. */
export function buildOutcome(ledger: LedgerReader, gas: GasModel, input: {
  state: RunState;
  data: ParsedData;
  txBcs: Uint8Array;
  digest: string;
  sender: string;
  gasOwner: string;
  price: bigint;
  budget: bigint;
  gasUsed: GasCostSummaryRecord;
  failure?: ExecutionFailure;
  signatures: readonly SignatureRecord[];
  gasCoinSpend: bigint;
}): ExecutionOutcome {
  const { state, digest, sender } = input;
  const objects = [...state.set.objects.values()].filter((object) => object.id !== MOCK_GAS_ID && !object.readOnly);
  const inputVersions = objects.filter((object) => object.original).map((object) => object.original!.version);
  const lamportVersion = inputVersions.reduce((max, version) => (version > max ? version : max), 0n) + 1n;
  const writes: ObjectRecord[] = [];
  const deletes: { objectId: string; version: bigint }[] = [];
  const changes: ObjectChangeRecord[] = [];
  const affectedAddresses = new Set<string>([sender]);
  const balanceDeltas = new Map<string, bigint>();
  const addDelta = (owner: string, coinType: string, amount: bigint) => balanceDeltas.set(key(owner, coinType), (balanceDeltas.get(key(owner, coinType)) ?? 0n) + amount);
  for (const object of objects) {
    const original = object.original;
    if (!original && object.deleted) continue;
    if (original?.owner.kind === 'address') affectedAddresses.add(original.owner.address);
    if (original?.coin && original.owner.kind === 'address') addDelta(original.owner.address, original.coin.coinType, -original.coin.balance);
    const inputRef = original ? { version: original.version, digest: original.digest, owner: original.owner } : undefined;
    if (object.deleted) {
      deletes.push({ objectId: object.id, version: lamportVersion });
      changes.push({ objectId: object.id, objectType: object.type, input: inputRef, idOperation: 'deleted' });
      continue;
    }
    // An object shared by the transaction that created it starts at that transaction's version.
    if (!original && object.owner?.kind === 'shared') object.owner = { kind: 'shared', initialSharedVersion: lamportVersion };
    const size = state.objectSizes.get(object.id) ?? encodeWorkingObject(object, lamportVersion, digest, 0n).bcs.length;
    const record = encodeWorkingObject(object, lamportVersion, digest, gas.storageCost(size));
    writes.push(record);
    if (record.owner.kind === 'address') affectedAddresses.add(record.owner.address);
    if (record.coin && record.owner.kind === 'address') addDelta(record.owner.address, record.coin.coinType, record.coin.balance);
    changes.push({ objectId: object.id, objectType: record.type, input: inputRef, output: { version: record.version, digest: record.digest, owner: record.owner }, idOperation: original ? 'none' : 'created' });
  }
  for (const [k, amount] of state.addressDeltas) {
    const [owner, coinType] = k.split('|') as [string, string];
    addDelta(owner, coinType, amount);
    affectedAddresses.add(owner);
  }
  const balanceChanges: BalanceChangeRecord[] = [...balanceDeltas.entries()]
    .filter(([, amount]) => amount !== 0n)
    .map(([k, amount]) => {
      const [address, coinType] = k.split('|') as [string, string];
      return { address, coinType, amount };
    });
  const events: EventRecord[] = input.failure
    ? []
    : state.events.map((event, eventIndex) => ({ transactionDigest: digest, eventIndex, packageId: event.packageId, module: event.module, sender, type: normalizeStructTag(event.type), contents: event.contents, json: event.json }));
  const dependencies = [...new Set(objects.filter((object) => object.original).map((object) => object.original!.previousTransaction))].sort();
  const effects = buildEffects({
    status: input.failure ? { success: false, failure: input.failure } : { success: true },
    epoch: ledger.currentEpoch().epoch,
    gasUsed: input.gasUsed,
    transactionDigest: digest,
    gasObjectId: state.gasCoin && state.gasCoin.id !== MOCK_GAS_ID ? state.gasCoin.id : undefined,
    eventsDigest: eventsDigest(events, (type) => (TypeTagSerializer.parseFromStr(type, true) as { struct: unknown }).struct),
    dependencies,
    lamportVersion,
    changedObjects: changes,
  });
  const payment = input.data.gasData.payment.map((ref) => ({ objectId: normalizeSuiAddress(ref.objectId), version: BigInt(ref.version), digest: ref.digest }));
  const record: TransactionRecord = {
    digest,
    bcs: input.txBcs,
    sender,
    gasOwner: input.gasOwner,
    gasPayment: payment,
    gasPrice: input.price,
    gasBudget: input.budget,
    kind: 'programmable',
    signatures: input.signatures,
    effects,
    events,
    balanceChanges,
    affectedAddresses: [...affectedAddresses].sort(),
    affectedObjects: [...changes.map((change) => change.objectId), ...state.readOnlyInputs],
    moveCalls: state.moveCalls,
  };
  return {
    record,
    writes,
    deletes,
    addressDeltas: input.failure ? new Map([...state.addressDeltas].filter(([k]) => k === key(input.gasOwner, SUI_COIN_TYPE))) : state.addressDeltas,
    allowanceUpdates: input.failure ? [] : [...state.allowanceUpdates.values()],
    gasCoinSpend: input.gasCoinSpend,
  };
}

/** Writes an outcome to the ledger; the transaction is sealed into the next checkpoint. */
export function applyOutcome(ledger: Ledger, outcome: ExecutionOutcome): void {
  for (const { objectId, version } of outcome.deletes) ledger.deleteObject(objectId, version, outcome.record.digest);
  for (const record of outcome.writes) ledger.putObject(record);
  for (const [k, amount] of outcome.addressDeltas) {
    const [owner, coinType] = k.split('|') as [string, string];
    ledger.adjustAddressBalance(owner, coinType, amount);
  }
  for (const allowance of outcome.allowanceUpdates) ledger.putAllowance(allowance);
  ledger.addTransaction(outcome.record);
}
