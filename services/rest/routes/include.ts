import { z } from 'zod';
import type { TransactionInclude } from '../domain/index.js';
import { stringBoolean } from '../schemas.js';

/** The four include flags (string booleans, default false). */
export const IncludeQuery = z.object({
  includeMetadata: stringBoolean.optional().meta({ description: 'gas data and signatures' }),
  includeEvents: stringBoolean.optional(),
  includeCommands: stringBoolean.optional().meta({ description: 'inputs and commands of the programmable transaction' }),
  includeBalanceChanges: stringBoolean.optional(),
});

export function includeFlags(q: z.infer<typeof IncludeQuery>): TransactionInclude {
  return {
    metadata: q.includeMetadata ?? false,
    events: q.includeEvents ?? false,
    commands: q.includeCommands ?? false,
    balanceChanges: q.includeBalanceChanges ?? false,
  };
}
