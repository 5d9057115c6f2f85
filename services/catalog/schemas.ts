import { isValidSuiAddress, normalizeSuiAddress } from '@mysten/sui/utils';
import { z } from 'zod';

const SWAP = '0xca100d09d0943baca1caa92da345351c72f5be3d2085913e287e308f1727a8d6::pool::SwapEvent';
const ID = '0x0000000000000000000000000000000000000000000000000000000000000002::object::ID';
const ADDRESS = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };

/** The OpenAPI examples (each checked against its schema by catalog.happy.test.ts). */
export const examples = {
  CatalogProtocol: {
    id: 'simnet-dex',
    name: 'simnet DEX',
    description: "simnet's stand-in AMM: a swap in a Pool<A, B> emits SwapEvent<A, B>.",
    packages: ['0xca100d09d0943baca1caa92da345351c72f5be3d2085913e287e308f1727a8d6'],
    eventTypes: [SWAP],
  },
  CatalogEvent: {
    type: SWAP,
    protocol: 'simnet-dex',
    packageId: '0xca100d09d0943baca1caa92da345351c72f5be3d2085913e287e308f1727a8d6',
    module: 'pool',
    name: 'SwapEvent',
    abilities: ['copy', 'drop'],
    typeParameters: [{ name: 'T0', constraints: [], isPhantom: true }, { name: 'T1', constraints: [], isPhantom: true }],
    fields: [
      { name: 'pool_id', type: ID, schema: ADDRESS },
      { name: 'amount_in', type: 'u64', schema: { type: 'string', pattern: '^[0-9]+$' } },
    ],
    schema: {
      type: 'object',
      properties: { pool_id: ADDRESS, amount_in: { type: 'string', pattern: '^[0-9]+$' } },
      required: ['pool_id', 'amount_in'],
    },
  },
};

/** A page size: decimal digits only, 1 to 100, default 50 (the spec's list limits). */
const limit = z.string().regex(/^\d{1,6}$/, 'expected decimal digits').transform(Number).pipe(z.number().int().min(1).max(100))
  .default(50).meta({ description: '1 to 100, default 50' });
const cursor = z.string().min(1).max(2048).optional().meta({ description: 'opaque cursor from a previous page' });

export const protocolsQuery = z.object({ limit, cursor });
export const eventsQuery = z.object({
  limit,
  cursor,
  protocol: z.string().regex(/^[a-z0-9-]{1,64}$/).optional().meta({ description: 'a protocol id from /v1/catalog/protocols', example: 'simnet-dex' }),
  package: z.string().max(66).regex(/^0x[0-9a-fA-F]{1,64}$/)
    .refine((value) => isValidSuiAddress(normalizeSuiAddress(value)), 'not a Sui address')
    .transform((value) => normalizeSuiAddress(value)).optional()
    .meta({ description: 'a package id (0x + up to 64 hex digits)', example: '0x3' }),
});

export const pagination = z.object({ limit: z.number(), cursor: z.string().optional(), hasNext: z.boolean() });

const jsonSchema = z.record(z.string(), z.unknown()).meta({ description: 'JSON Schema of the value in the event\'s JSON' });

export const CatalogProtocol = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  packages: z.array(z.string()),
  eventTypes: z.array(z.string()).meta({ description: 'usable as is in a Warp stream\'s filters.eventTypes' }),
}).meta({ id: 'CatalogProtocol', examples: [examples.CatalogProtocol] });

export const CatalogEvent = z.object({
  type: z.string().meta({ description: 'the event type without instantiation: matches every instantiation in a stream filter' }),
  protocol: z.string(),
  packageId: z.string(),
  module: z.string(),
  name: z.string(),
  abilities: z.array(z.string()),
  typeParameters: z.array(z.object({ name: z.string(), constraints: z.array(z.string()), isPhantom: z.boolean() })),
  fields: z.array(z.object({ name: z.string(), type: z.string().meta({ description: 'normalized Move type' }), schema: jsonSchema })),
  schema: jsonSchema,
}).meta({ id: 'CatalogEvent', examples: [examples.CatalogEvent] });
