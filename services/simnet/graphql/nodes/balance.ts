import type { BalanceRecord } from '../../ledger/index.js';
import { MoveTypeNode } from './move.js';

export class BalanceNode {
  readonly __typename = 'Balance';
  readonly coinType: MoveTypeNode;
  readonly totalBalance: bigint;
  readonly coinBalance: bigint;
  readonly addressBalance: bigint;

  constructor(record: BalanceRecord) {
    this.coinType = new MoveTypeNode(record.coinType);
    this.totalBalance = record.balance;
    this.coinBalance = record.coinBalance;
    this.addressBalance = record.addressBalance;
  }
}
