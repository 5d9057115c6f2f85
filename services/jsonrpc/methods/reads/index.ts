import type { JsonRpcMethod } from '../../method.js';
import { getChainIdentifier, getLatestCheckpointSequenceNumber, getReferenceGasPrice, getTotalTransactionBlocks } from './chain.js';
import { getAllBalances, getAllCoins, getBalance, getCoinMetadata, getCoins, getTotalSupply } from './coins.js';

/** The read methods of Sui's JSON-RPC, each translated to gRPC v2 or GraphQL. */
export const READ_METHODS: readonly JsonRpcMethod[] = [
  getChainIdentifier, getLatestCheckpointSequenceNumber, getTotalTransactionBlocks, getReferenceGasPrice,
  getBalance, getAllBalances, getCoins, getAllCoins, getCoinMetadata, getTotalSupply,
];
