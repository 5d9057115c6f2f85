import type { bcs } from '@mysten/sui/bcs';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import type { AllowanceRecord, Ledger, ObjectRecord } from '../ledger/index.js';
import { encodeMoveObject } from '../ledger/object-encoding.js';
import type { EmittedEvent } from './move-calls.js';
import type { Value } from './values.js';
import { coinState } from './working-set.js';
import type { WorkingObject, WorkingSet } from './working-set.js';

export type ParsedData = ReturnType<typeof bcs.TransactionData.parse>['V1'];

/** Id of the mock gas coin used in simulations without gas payment; never written. */
export const MOCK_GAS_ID = normalizeSuiAddress('0x0');
/** Its balance: a full node's DEV_INSPECT_GAS_COIN_VALUE, so that splitting the gas coin never runs dry in a simulation. */
export const MOCK_GAS_BALANCE = 1_000_000_000_000_000_000n;
export const ENVELOPE_NONCES = new WeakMap<Ledger, bigint>();

/** Key of an (owner, coin type) balance in delta maps. */
export function key(owner: string, coinType: string): string {
  return `${owner}|${coinType}`;
}

/** Mutable state of one execution attempt. */
export interface RunState {
  set: WorkingSet;
  gasCoin?: WorkingObject;
  /** `GasCoin` when a coin reservation leads the gas payment: funds withdrawn from `owner`'s address balance. */
  materializedGas?: { readonly coin: WorkingObject; readonly owner: string };
  inputs: Value[];
  events: EmittedEvent[];
  addressDeltas: Map<string, bigint>;
  allowanceUpdates: Map<string, AllowanceRecord>;
  moveCalls: { package: string; module: string; function: string }[];
  readOnlyInputs: string[];
  /** BCS size of each object to be written, measured while charging storage. */
  objectSizes: Map<string, number>;
}


/** The object version a working object becomes when written. */
export function encodeWorkingObject(object: WorkingObject, version: bigint, digest: string, storageRebate: bigint): ObjectRecord {
  const state = object.coin ? coinState(object.id, object.coin.balance) : { contents: object.contents ?? object.original!.contents, json: object.json ?? object.original!.json };
  return encodeMoveObject({
    objectId: object.id,
    version,
    type: object.type,
    owner: object.owner!,
    previousTransaction: digest,
    storageRebate,
    hasPublicTransfer: object.hasPublicTransfer,
    contents: state.contents,
    json: state.json,
    coin: object.coin ? { coinType: object.coin.coinType, balance: object.coin.balance } : undefined,
    display: object.display,
    dynamicField: object.original?.dynamicField,
  });
}
