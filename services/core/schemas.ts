import { z } from 'zod';

/** The error body every route documents: rendered by the one error handler. */
export const errorResponseSchema = z
  .object({
    error: z.string().meta({ description: 'Short human summary.' }),
    message: z.string().optional().meta({ description: 'Detail for this request.' }),
    code: z.string().optional().meta({ description: 'Stable code to branch on (see the error table).' }),
    requestId: z.string().optional(),
  })
  .passthrough()
  .meta({ id: 'Error' });

/** `{ 400: error, 401: error, ... }` for a route's documented failure statuses. */
export function errorResponses<const S extends number>(...statuses: S[]): Record<S, typeof errorResponseSchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponseSchema])) as Record<S, typeof errorResponseSchema>;
}

/** Sui addresses and object ids as the spec writes them: `^0x[a-fA-F0-9]{64}$`. */
export const ADDRESS_PATTERN = /^0x[a-fA-F0-9]{64}$/;
