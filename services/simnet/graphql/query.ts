import { fromBase64 } from '@mysten/sui/utils';
import { verifyUserSignature } from '../execution/signatures.js';
import type { RequestContext } from './context.js';
import { badUserInput, notSupported } from './errors.js';
import { checkMultiGetSize, pageLimits } from './limits.js';
import { nodeById } from './node-lookup.js';
import { canonicalType } from './move-types.js';
import { pageFromArgs, paginate } from './pagination.js';
import type { PageArgs } from './pagination.js';
import { serviceConfig } from './service-config.js';
import { CheckpointNode, checkpointConnection } from './nodes/checkpoint.js';
import type { CheckpointFilterArgs } from './nodes/checkpoint.js';
import type { EffectsNode } from './nodes/effects.js';
import { EpochNode, ProtocolConfigsNode } from './nodes/epoch.js';
import { MoveTypeNode } from './nodes/move.js';
import { NameRecordNode } from './nodes/name-record.js';
import { boundedObject, boundedPackage, objectConnection, packageConnection, packageVersionConnection, versionConnection } from './nodes/object-lookups.js';
import type { ObjectFilterArgs, VersionFilterArgs } from './nodes/object-lookups.js';
import { AddressNode, CoinMetadataNode, ObjectNode } from './nodes/objects.js';
import { TransactionNode } from './nodes/transaction.js';
import { eventConnection, transactionConnection } from './nodes/transaction-filters.js';
import type { EventFilterArgs, TransactionFilterArgs } from './nodes/transaction-filters.js';
import type { TransactionRunner } from './transaction-runner.js';

interface ObjectKeyArgs {
  address: string;
  version?: number | null;
  rootVersion?: number | null;
  atCheckpoint?: number | null;
}

/** An address's balances and owned objects in the past need an index simnet does not keep. */
function rejectHistoricalAddress(args: { rootVersion?: number | null; atCheckpoint?: number | null }, ctx: RequestContext) {
  if (args.rootVersion != null) throw notSupported('address(rootVersion)');
  if (args.atCheckpoint != null && BigInt(args.atCheckpoint) < ctx.ledger.latestCheckpoint().sequenceNumber) {
    throw notSupported('address(atCheckpoint) before the latest checkpoint');
  }
}

function sealedTransaction(ctx: RequestContext, digest: string): TransactionNode | null {
  const tx = ctx.ledger.getTransaction(digest);
  // Like Sui's indexer, GraphQL sees a transaction once its checkpoint is sealed.
  return tx && tx.checkpoint !== undefined ? new TransactionNode(ctx, tx) : null;
}

function objectByKey(ctx: RequestContext, key: ObjectKeyArgs): ObjectNode | null {
  const record = boundedObject(ctx, key.address, key);
  return record ? ObjectNode.of(ctx, record, 'Object') : null;
}

function addressByKey(ctx: RequestContext, key: { address?: string | null; name?: string | null; rootVersion?: number | null; atCheckpoint?: number | null }): AddressNode | null {
  if ((key.address == null) === (key.name == null)) throw badUserInput('Exactly one of address or name must be specified');
  rejectHistoricalAddress(key, ctx);
  if (key.address != null) return new AddressNode(ctx, key.address);
  const record = ctx.ledger.lookupName(key.name!);
  const live = record && NameRecordNode.live(ctx, record);
  return live ? live.target() : null;
}

function allEpochs(ctx: RequestContext) {
  const current = ctx.ledger.currentEpoch().epoch;
  const epochs = [];
  for (let id = 0n; id <= current; id++) {
    const epoch = ctx.ledger.getEpoch(id);
    if (epoch) epochs.push(epoch);
  }
  return epochs;
}

/**
 * Verifies a signature the way simnet's executor and gRPC SignatureVerificationService do (zkLogin
 * structurally, without the Groth16 proof), answering Sui's shapes: success, or an error saying
 * why not.
 */
async function verifyAuthor(
  ctx: RequestContext,
  args: { message: string; signature: string; intentScope: string; author: string },
  typename: string,
  scheme?: 'zklogin',
) {
  const kind = args.intentScope === 'TRANSACTION_DATA' ? 'transaction' : 'personalMessage';
  let verified;
  try {
    verified = await verifyUserSignature({ kind, bytes: fromBase64(args.message) }, fromBase64(args.signature), ctx.ledger.currentEpoch().epoch);
  } catch (error) {
    throw badUserInput(`Invalid signature: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (scheme && verified.record.scheme !== scheme) throw badUserInput(`Expected a ${scheme} signature, got ${verified.record.scheme}`);
  if (verified.address !== args.author) throw badUserInput(`Signature is for ${verified.address}, not ${args.author}`);
  return { __typename: typename, success: true };
}

/**
 * The root value: `Query` fields and `Mutation.executeTransaction` (graphql-js reads both
 * operation types from one root object).
 */
export function createRoot(ctx: RequestContext, runner: TransactionRunner | undefined): object {
  const ledger = ctx.ledger;
  return {
    chainIdentifier: () => ledger.chainId,
    serviceConfig: () => serviceConfig(ctx),

    address: (args: { address?: string | null; name?: string | null; rootVersion?: number | null; atCheckpoint?: number | null }) => addressByKey(ctx, args),
    multiGetAddresses: ({ keys }: { keys: Parameters<typeof addressByKey>[1][] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((key) => addressByKey(ctx, key));
    },
    multiGetBalances: ({ keys }: { keys: { address: string; coinType: string }[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((key) => new AddressNode(ctx, key.address).balance({ coinType: key.coinType }));
    },

    checkpoint: ({ sequenceNumber, digest }: { sequenceNumber?: number | null; digest?: string | null }) => {
      if (sequenceNumber != null && digest != null) throw badUserInput('Cannot specify both sequenceNumber and digest');
      const record =
        sequenceNumber != null ? ledger.getCheckpoint(BigInt(sequenceNumber)) : digest != null ? ledger.getCheckpointByDigest(digest) : ledger.latestCheckpoint();
      return record ? new CheckpointNode(ctx, record) : null;
    },
    checkpoints: (args: PageArgs & { filter?: CheckpointFilterArgs | null }) => checkpointConnection(ctx, args.filter ?? {}, args),
    multiGetCheckpoints: ({ keys }: { keys: number[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((seq) => {
        const record = ledger.getCheckpoint(BigInt(seq));
        return record ? new CheckpointNode(ctx, record) : null;
      });
    },

    epoch: ({ epochId }: { epochId?: number | null }) => {
      const record = epochId == null ? ledger.currentEpoch() : ledger.getEpoch(BigInt(epochId));
      return record ? new EpochNode(ctx, record) : null;
    },
    epochs: (args: PageArgs) => paginate(allEpochs(ctx), (e) => Number(e.epoch), pageFromArgs(args, pageLimits('Query', 'epochs')), (e) => new EpochNode(ctx, e)),
    multiGetEpochs: ({ keys }: { keys: number[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((id) => {
        const record = ledger.getEpoch(BigInt(id));
        return record ? new EpochNode(ctx, record) : null;
      });
    },
    protocolConfigs: ({ version }: { version?: number | null }) =>
      version == null || BigInt(version) === ledger.protocolConfig().protocolVersion ? new ProtocolConfigsNode(ctx) : null,

    coinMetadata: ({ coinType }: { coinType: string }) => {
      const record = ledger.getCoinType(canonicalType(coinType));
      const object = record?.metadata && ledger.getObject(record.metadata.objectId);
      return record && object ? new CoinMetadataNode(ctx, record, object) : null;
    },

    nameRecord: ({ name }: { name: string }) => {
      const record = ledger.lookupName(name);
      return record ? NameRecordNode.live(ctx, record) : null;
    },

    object: (args: ObjectKeyArgs) => objectByKey(ctx, args),
    multiGetObjects: ({ keys }: { keys: ObjectKeyArgs[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((key) => objectByKey(ctx, key));
    },
    objectVersions: (args: PageArgs & { address: string; filter?: VersionFilterArgs | null }) => versionConnection(ctx, args.address, args.filter ?? {}, args),
    objects: (args: PageArgs & { filter: ObjectFilterArgs }) => objectConnection(ctx, args.filter, args),

    package: (args: { address: string; version?: number | null; atCheckpoint?: number | null }) => boundedPackage(ctx, args.address, args),
    multiGetPackages: ({ keys }: { keys: { address: string; version?: number | null; atCheckpoint?: number | null }[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((key) => boundedPackage(ctx, key.address, key));
    },
    packages: (args: PageArgs & { filter?: { afterCheckpoint?: number | null; beforeCheckpoint?: number | null } | null }) =>
      packageConnection(ctx, args.filter ?? {}, args),
    packageVersions: (args: PageArgs & { address: string; filter?: VersionFilterArgs | null }) =>
      packageVersionConnection(ctx, args.address, args.filter ?? {}, args),

    transaction: ({ digest }: { digest: string }) => sealedTransaction(ctx, digest),
    multiGetTransactions: ({ keys }: { keys: string[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((digest) => sealedTransaction(ctx, digest));
    },
    transactionEffects: ({ digest }: { digest: string }) => sealedTransaction(ctx, digest)?.effects() ?? null,
    multiGetTransactionEffects: ({ keys }: { keys: string[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((digest): EffectsNode | null => sealedTransaction(ctx, digest)?.effects() ?? null);
    },
    transactions: (args: PageArgs & { filter?: TransactionFilterArgs | null }) =>
      transactionConnection(ctx, args.filter ?? {}, args, pageLimits('Query', 'transactions')),
    events: (args: PageArgs & { filter?: EventFilterArgs | null }) => eventConnection(ctx, args.filter ?? {}, args),

    type: ({ type }: { type: string }) => MoveTypeNode.lookup(ctx, type),
    multiGetTypes: ({ keys }: { keys: string[] }) => {
      checkMultiGetSize(keys.length);
      return keys.map((type) => MoveTypeNode.lookup(ctx, type));
    },

    verifySignature: (args: { message: string; signature: string; intentScope: string; author: string }) =>
      verifyAuthor(ctx, args, 'SignatureVerifyResult'),
    verifyZkLoginSignature: (args: { bytes: string; signature: string; intentScope: string; author: string }) =>
      verifyAuthor(ctx, { ...args, message: args.bytes }, 'ZkLoginVerifyResult', 'zklogin'),
    node: ({ id }: { id: string }) => nodeById(ctx, id),

    simulateTransaction: (args: { transaction: unknown; checksEnabled?: boolean | null; doGasSelection?: boolean | null }) => {
      if (!runner?.simulate) throw notSupported('Query.simulateTransaction');
      return runner.simulate(ctx, args);
    },
    executeTransaction: (args: { transactionDataBcs: string; signatures: string[] }) => {
      if (!runner?.execute) throw notSupported('Mutation.executeTransaction');
      return runner.execute(ctx, args);
    },
  };
}

