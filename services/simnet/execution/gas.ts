import type { GasCostSummaryRecord, ProtocolConfigRecord } from '../ledger/index.js';

/**
 * Simplified Sui gas model: computation is charged in buckets of gas units times the gas price;
 * storage is charged per byte of every written object at the storage price; deleting or
 * rewriting an object refunds its storage rebate minus the non-refundable share (1%).
 */
export class GasModel {
  readonly storagePrice: bigint;
  readonly refundableCostPerByte: bigint;
  readonly rebateRateBps: bigint;
  readonly maxTxGas: bigint;

  constructor(config: ProtocolConfigRecord) {
    const attribute = (name: string, fallback: bigint) => BigInt(config.attributes[name] ?? fallback);
    this.storagePrice = attribute('storage_gas_price', 76n);
    this.refundableCostPerByte = attribute('obj_data_cost_refundable', 100n);
    this.rebateRateBps = attribute('storage_rebate_rate', 9900n);
    this.maxTxGas = attribute('max_tx_gas', 50_000_000_000n);
  }

  /** Computation units: 1,000 for small transactions, then buckets as Sui rounds them. */
  computationUnits(commands: number, inputs: number, moveCalls: number): bigint {
    const raw = 200 * commands + 50 * inputs + 600 * moveCalls;
    const buckets = [1_000, 5_000, 10_000, 20_000, 50_000];
    return BigInt(buckets.find((bucket) => raw <= bucket) ?? 50_000);
  }

  storageCost(objectBytes: number): bigint {
    return BigInt(objectBytes) * this.refundableCostPerByte * this.storagePrice;
  }

  summary(computationCost: bigint, storageCost: bigint, rebatedStorage: bigint): GasCostSummaryRecord {
    const storageRebate = (rebatedStorage * this.rebateRateBps) / 10_000n;
    return { computationCost, storageCost, storageRebate, nonRefundableStorageFee: rebatedStorage - storageRebate };
  }

  static net(summary: GasCostSummaryRecord): bigint {
    return summary.computationCost + summary.storageCost - summary.storageRebate;
  }

  /** What the budget must cover: computation, or the net charge when storage adds to it. */
  static charged(summary: GasCostSummaryRecord): bigint {
    const net = GasModel.net(summary);
    return net > summary.computationCost ? net : summary.computationCost;
  }
}
