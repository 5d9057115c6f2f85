import type { RequestContext } from './context.js';
import { CheckpointNode } from './nodes/checkpoint.js';
import { EpochNode } from './nodes/epoch.js';
import { AddressNode, DynamicFieldNode, ObjectNode, PackageNode, isTombstone } from './nodes/objects.js';
import { TransactionNode } from './nodes/transaction.js';
import { decodeNodeId } from './nodes/node-id.js';

/** `Query.node(id)`: the node a global id names, or null if it does not exist (any more). */
export function nodeById(ctx: RequestContext, id: string): object | null {
  const [typename, key, version] = decodeNodeId(id);
  const ledger = ctx.ledger;
  switch (typename) {
    case 'Address':
      return typeof key === 'string' ? new AddressNode(ctx, key) : null;
    case 'Checkpoint': {
      const checkpoint = typeof key === 'number' ? ledger.getCheckpoint(BigInt(key)) : undefined;
      return checkpoint ? new CheckpointNode(ctx, checkpoint) : null;
    }
    case 'Epoch': {
      const epoch = typeof key === 'number' ? ledger.getEpoch(BigInt(key)) : undefined;
      return epoch ? new EpochNode(ctx, epoch) : null;
    }
    case 'Transaction': {
      const tx = typeof key === 'string' ? ledger.getTransaction(key) : undefined;
      return tx && tx.checkpoint !== undefined ? new TransactionNode(ctx, tx) : null;
    }
    case 'Object':
    case 'MoveObject':
    case 'MovePackage':
    case 'DynamicField': {
      const record = typeof key === 'string' && typeof version === 'number' ? ledger.getObjectAtVersion(key, BigInt(version)) : undefined;
      if (!record || isTombstone(record)) return null;
      if (typename === 'MovePackage') return record.package ? new PackageNode(ctx, record) : null;
      if (typename === 'DynamicField') return record.dynamicField ? new DynamicFieldNode(ctx, record) : null;
      return ObjectNode.of(ctx, record, typename);
    }
    default:
      return null;
  }
}
