import { GrpcTypes } from '@mysten/sui/grpc';
import type { BalanceChangeRecord, TransactionRecord } from '../ledger/index.js';
import { effectsToProto, transactionDataToProto } from '../grpc/convert-transactions.js';

/**
 * Sui's GraphQL service answers `transactionJson`, `effectsJson` and `balanceChangesJson` with the
 * gRPC v2 messages in protobuf JSON (the SDK parses them back with the generated types), so they
 * are built by simnet's gRPC converters: both APIs answer the same messages.
 */
export function transactionJson(tx: TransactionRecord): unknown {
  return GrpcTypes.Transaction.toJson(transactionDataToProto(tx.bcs, tx.digest));
}

export function effectsJson(tx: TransactionRecord): unknown {
  return GrpcTypes.TransactionEffects.toJson(effectsToProto(tx.effects));
}

export function balanceChangeJson(change: BalanceChangeRecord): unknown {
  return GrpcTypes.BalanceChange.toJson({ address: change.address, coinType: change.coinType, amount: change.amount.toString() });
}
