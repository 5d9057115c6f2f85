import type { RequestContext } from './context.js';
import { LIMITS, pageLimits } from './limits.js';
import { CheckpointNode } from './nodes/checkpoint.js';

/** `Query.serviceConfig`: the limits in limits.ts, and the whole chain as the available range. */
export function serviceConfig(ctx: RequestContext) {
  return {
    __typename: 'ServiceConfig',
    ...LIMITS,
    maxTransactionPayloadSize: LIMITS.maxTransactionPayloadSize,
    defaultPageSize: ({ type, field }: { type: string; field: string }) => pageLimits(type, field).default,
    maxPageSize: ({ type, field }: { type: string; field: string }) => pageLimits(type, field).max,
    availableRange: () => {
      const first = ctx.ledger.getCheckpoint(0n);
      return {
        __typename: 'AvailableRange',
        first: first ? new CheckpointNode(ctx, first) : null,
        last: new CheckpointNode(ctx, ctx.ledger.latestCheckpoint()),
      };
    },
  };
}
