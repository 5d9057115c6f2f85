import type { GasCostSummaryRecord } from '../../ledger/index.js';

/** `GasCostSummary`: the schema types its amounts as UInt53. */
export function gasCostSummary(gas: GasCostSummaryRecord) {
  return {
    __typename: 'GasCostSummary',
    computationCost: Number(gas.computationCost),
    storageCost: Number(gas.storageCost),
    storageRebate: Number(gas.storageRebate),
    nonRefundableStorageFee: Number(gas.nonRefundableStorageFee),
  };
}
