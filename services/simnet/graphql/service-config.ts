import { getNamedType, isObjectType, isInterfaceType } from 'graphql';
import type { RequestContext } from './context.js';
import { LIMITS, pageLimits } from './limits.js';
import type { PageLimits } from './pagination.js';
import { CheckpointNode } from './nodes/checkpoint.js';
import { suiSchema } from './schema.js';

/** A paginated field's page limits; null for a field that does not exist or is not paginated. */
function limitsOf(type: string, field: string): PageLimits | null {
  const parent = suiSchema().getType(type);
  const fieldType = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[field]?.type : undefined;
  return fieldType && getNamedType(fieldType).name.endsWith('Connection') ? pageLimits(type, field) : null;
}

/** `Query.serviceConfig`: the limits in limits.ts, and the whole chain as the available range. */
export function serviceConfig(ctx: RequestContext) {
  return {
    __typename: 'ServiceConfig',
    ...LIMITS,
    defaultPageSize: ({ type, field }: { type: string; field: string }) => limitsOf(type, field)?.default ?? null,
    maxPageSize: ({ type, field }: { type: string; field: string }) => limitsOf(type, field)?.max ?? null,
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
