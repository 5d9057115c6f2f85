import { fromBase58, toHex } from '@mysten/sui/utils';
import type { JsonRpcMethod } from '../../method.js';
import { mask, read, u64 } from './upstream-reads.js';

/** Chain-wide facts: the chain identifier, checkpoint height, totals, gas price, protocol config. */

export const getChainIdentifier: JsonRpcMethod = {
  name: 'sui_getChainIdentifier',
  translatesTo: 'gRPC LedgerService.GetServiceInfo (chain_id), once per network (cached)',
  async handle(_params, context) {
    return context.cache.read('chain-identifier', '', async () => {
      const info = await read(context, 'GetServiceInfo', (options) => context.upstream.grpc.ledgerService.getServiceInfo({}, options));
      // The legacy identifier is the first four bytes of the genesis checkpoint digest, in hex.
      return toHex(fromBase58(info.chainId ?? '').slice(0, 4));
    }, { keep: (identifier) => identifier !== '' });
  },
};

export const getLatestCheckpointSequenceNumber: JsonRpcMethod = {
  name: 'sui_getLatestCheckpointSequenceNumber',
  translatesTo: 'gRPC LedgerService.GetServiceInfo (checkpoint_height)',
  async handle(_params, context) {
    const info = await read(context, 'GetServiceInfo', (options) => context.upstream.grpc.ledgerService.getServiceInfo({}, options));
    return u64(info.checkpointHeight);
  },
};

export const getTotalTransactionBlocks: JsonRpcMethod = {
  name: 'sui_getTotalTransactionBlocks',
  translatesTo: 'gRPC LedgerService.GetCheckpoint (latest; summary.total_network_transactions)',
  async handle(_params, context) {
    const response = await read(context, 'GetCheckpoint', (options) =>
      context.upstream.grpc.ledgerService.getCheckpoint({ checkpointId: { oneofKind: undefined }, ...mask('summary.total_network_transactions') }, options));
    return u64(response.checkpoint?.summary?.totalNetworkTransactions);
  },
};

export const getReferenceGasPrice: JsonRpcMethod = {
  name: 'suix_getReferenceGasPrice',
  translatesTo: 'gRPC LedgerService.GetEpoch (current; reference_gas_price)',
  async handle(_params, context) {
    const response = await read(context, 'GetEpoch', (options) => context.upstream.grpc.ledgerService.getEpoch(mask('reference_gas_price'), options));
    return u64(response.epoch?.referenceGasPrice);
  },
};
