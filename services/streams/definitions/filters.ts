import { isValidStructTag, isValidSuiAddress, normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { z } from 'zod';
import { ApiError } from '../../core/index.js';
import { FILTER_LIMITS, filterBytes } from './filter-limits.js';

/** The four stream types of the spec (Events, Addresses, Coins, Objects). */
export const STREAM_TYPES = ['event', 'address', 'coin', 'object'] as const;
export type StreamType = (typeof STREAM_TYPES)[number];

/** At most this many entries per filter list: the matcher indexes each, so a stream stays cheap. */
export const MAX_FILTER_ENTRIES = FILTER_LIMITS.maxDistinctValues;

const structTag = z
  .string()
  .max(1_000)
  .refine((value) => isValidStructTag(value), { message: 'not a Move struct type (0xADDRESS::module::Name<...>)' })
  // A Move Registry name (`@org/pkg`, `org.sui/pkg`) parses as one too, but chain activity names
  // every type by its package address: such a filter would be stored and match nothing, ever.
  .refine((value) => !isValidStructTag(value) || !value.includes('/'), {
    message: 'not a Move struct type with package addresses (0xADDRESS::module::Name<...>; Move Registry names are not resolved)',
  })
  // One spelling per type, so `0x2::coin::Coin` and its long form match the same events.
  .transform((value) => normalizeStructTag(value));

const suiAddress = z
  .string()
  .max(66)
  .refine((value) => isValidSuiAddress(normalizeSuiAddress(value)) && /^0x[0-9a-fA-F]{1,64}$/.test(value), { message: 'not a Sui address (0x + up to 64 hex digits)' })
  .transform((value) => normalizeSuiAddress(value));

const list = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(MAX_FILTER_ENTRIES);

/**
 * Field-value filters of an Event stream: every named field of the event's JSON must equal the
 * value. A number is compared by its string form, so only exact integers can ever match a Move
 * value (Move has no fractions; u64 and wider travel as strings): `2**53` or `1e21` would be
 * compared as `9007199254740992` or `1e+21` and silently match nothing, so they are refused.
 */
const fieldValue = z.union([
  z.string().max(1_000),
  z.number().refine(Number.isSafeInteger, { message: 'numbers must be integers within ±(2^53 − 1); give larger Move integers as strings' }),
  z.boolean(),
]);

/** The whole filter's size, normalized, within the one limit every filtering surface shares. */
const withinBytes = <T extends z.ZodObject>(schema: T) => schema.refine((filters) => filterBytes(filters) <= FILTER_LIMITS.maxBytes, {
  message: `the filters exceed ${FILTER_LIMITS.maxBytes} bytes (limit: bytesPerFilter)`,
});

export const eventFiltersSchema = withinBytes(z.strictObject({
  eventTypes: list(structTag),
  fields: z.record(z.string().min(1).max(100), fieldValue).refine((fields) => Object.keys(fields).length <= 20, {
    message: 'at most 20 field filters',
  }).optional(),
}));
export const addressFiltersSchema = withinBytes(z.strictObject({ addresses: list(suiAddress) }));
export const coinFiltersSchema = withinBytes(z.strictObject({ coinTypes: list(structTag) }));
export const objectFiltersSchema = withinBytes(z.strictObject({ objectIds: list(suiAddress) }));

export type EventFilters = z.infer<typeof eventFiltersSchema>;
export type AddressFilters = z.infer<typeof addressFiltersSchema>;
export type CoinFilters = z.infer<typeof coinFiltersSchema>;
export type ObjectFilters = z.infer<typeof objectFiltersSchema>;

/** A stream's type with the filters of that type (the create body's `type` + `filters`). */
export type StreamFilter =
  | { type: 'event'; filters: EventFilters }
  | { type: 'address'; filters: AddressFilters }
  | { type: 'coin'; filters: CoinFilters }
  | { type: 'object'; filters: ObjectFilters };

export const FILTER_SCHEMAS = {
  event: eventFiltersSchema,
  address: addressFiltersSchema,
  coin: coinFiltersSchema,
  object: objectFiltersSchema,
} as const;

/** `{type, filters}` as one discriminated union: the filters must be those of the type. */
export const streamFilterSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('event'), filters: eventFiltersSchema }),
  z.object({ type: z.literal('address'), filters: addressFiltersSchema }),
  z.object({ type: z.literal('coin'), filters: coinFiltersSchema }),
  z.object({ type: z.literal('object'), filters: objectFiltersSchema }),
]);

/**
 * New filters for an existing stream or webhook (PATCH): they must be those of its type, which is
 * fixed at creation; otherwise 400 VALIDATION_FAILED naming each issue under `body.filters`.
 */
export function parseFiltersOf(type: StreamType, filters: unknown): StreamFilter['filters'] {
  const parsed = FILTER_SCHEMAS[type].safeParse(filters);
  if (!parsed.success) {
    // An issue about the filters object itself (an unknown key) has an empty path: `body.filters`,
    // as the create routes' schema validation names it.
    const issues = parsed.error.issues.map((issue) => `${['body', 'filters', ...issue.path].join('.')}: ${issue.message}`);
    throw new ApiError('VALIDATION_FAILED', { message: issues.join('; '), fields: { issues } });
  }
  return parsed.data;
}
