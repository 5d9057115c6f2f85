import type { JsonRpcMethod } from '../../method.js';
import { getChainIdentifier, getLatestCheckpointSequenceNumber, getReferenceGasPrice, getTotalTransactionBlocks } from './chain.js';
import { getCheckpoint, getCheckpoints } from './checkpoints.js';
import { getAllBalances, getAllCoins, getBalance, getCoinMetadata, getCoins, getTotalSupply } from './coins.js';
import { getDynamicFieldObject, getDynamicFields } from './dynamic-fields.js';
import {
  getMoveFunctionArgTypes, getNormalizedMoveFunction, getNormalizedMoveModule, getNormalizedMoveModulesByPackage, getNormalizedMoveStruct,
} from './move.js';
import { resolveNameServiceAddress, resolveNameServiceNames } from './names.js';
import { getObjectMethod, multiGetObjects, tryGetPastObject, tryMultiGetPastObjects } from './objects.js';
import { getOwnedObjects } from './owned-objects.js';
import { getStakes, getStakesByIds } from './stakes.js';
import { getCommitteeInfo, getLatestSuiSystemState, getProtocolConfig, getValidatorsApy } from './system.js';
import { verifyZkLoginSignature } from './zklogin.js';

/** The read methods of Sui's JSON-RPC, each translated to gRPC v2 or GraphQL. */
export const READ_METHODS: readonly JsonRpcMethod[] = [
  getChainIdentifier, getLatestCheckpointSequenceNumber, getTotalTransactionBlocks, getReferenceGasPrice, getProtocolConfig,
  getCheckpoint, getCheckpoints,
  getBalance, getAllBalances, getCoins, getAllCoins, getCoinMetadata, getTotalSupply,
  getObjectMethod, multiGetObjects, tryGetPastObject, tryMultiGetPastObjects, getOwnedObjects,
  getDynamicFields, getDynamicFieldObject,
  getNormalizedMoveModulesByPackage, getNormalizedMoveModule, getNormalizedMoveStruct, getNormalizedMoveFunction, getMoveFunctionArgTypes,
  getLatestSuiSystemState, getCommitteeInfo, getValidatorsApy, getStakes, getStakesByIds,
  resolveNameServiceAddress, resolveNameServiceNames,
  verifyZkLoginSignature,
];
