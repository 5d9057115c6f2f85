import { readFileSync } from 'node:fs';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { z } from 'zod';
import { fieldSchema, normalizeMoveType, type JsonSchema } from './move-types.js';

/** Where a cataloged protocol's packages live; `simnet` stands for networks served by simnet. */
export const CATALOG_NETWORKS = ['mainnet', 'testnet', 'devnet', 'simnet'] as const;
export type CatalogNetwork = (typeof CATALOG_NETWORKS)[number];

const ability = z.enum(['copy', 'drop', 'store', 'key']);
const catalogFile = z.strictObject({
  version: z.literal(1),
  description: z.string(),
  protocols: z.array(z.strictObject({
    id: z.string().regex(/^[a-z0-9-]{1,64}$/),
    name: z.string(),
    description: z.string(),
    networks: z.array(z.enum(CATALOG_NETWORKS)).min(1),
    packages: z.array(z.string()).min(1),
    events: z.array(z.strictObject({
      type: z.string(),
      abilities: z.array(ability),
      typeParameters: z.array(z.strictObject({ constraints: z.array(ability), isPhantom: z.boolean() })),
      fields: z.array(z.strictObject({ name: z.string(), type: z.string() })).min(1),
    })).min(1),
  })),
});

export interface CatalogField {
  name: string;
  /** The Move type, normalized (full addresses). */
  type: string;
  /** JSON Schema of the field's value in an event's JSON (a stream message's `json`). */
  schema: JsonSchema;
}

/** One event type: usable as is in a Warp stream's `filters.eventTypes` (matches every instantiation). */
export interface CatalogEvent {
  type: string;
  protocol: string;
  packageId: string;
  module: string;
  name: string;
  abilities: string[];
  typeParameters: { name: string; constraints: string[]; isPhantom: boolean }[];
  fields: CatalogField[];
  /** JSON Schema of the whole event's JSON. */
  schema: JsonSchema;
}

export interface CatalogProtocol {
  id: string;
  name: string;
  description: string;
  packages: string[];
  eventTypes: string[];
}

interface Entry {
  protocol: CatalogProtocol;
  networks: readonly CatalogNetwork[];
  events: CatalogEvent[];
}

/**
 * The protocols and event types suigw knows (`catalog.v1.json`, versioned with the code), with
 * field schemas derived from each event's normalized Move struct layout.
 */
export class EventCatalog {
  readonly #entries: Entry[];

  constructor(file: unknown) {
    const parsed = catalogFile.parse(file);
    this.#entries = parsed.protocols.map((protocol) => {
      const events = protocol.events.map((event): CatalogEvent => {
        const type = normalizeStructTag(event.type);
        const [packageId, module, name] = type.split('::') as [string, string, string];
        const fields = event.fields.map((field) => ({ name: field.name, type: normalizeMoveType(field.type), schema: fieldSchema(field.type) }));
        return {
          type, protocol: protocol.id, packageId, module, name,
          abilities: event.abilities,
          typeParameters: event.typeParameters.map((parameter, index) => ({ name: `T${index}`, ...parameter })),
          fields,
          schema: {
            type: 'object',
            properties: Object.fromEntries(fields.map((field) => [field.name, field.schema])),
            required: fields.map((field) => field.name),
          },
        };
      });
      return {
        networks: protocol.networks,
        events,
        protocol: {
          id: protocol.id, name: protocol.name, description: protocol.description,
          packages: protocol.packages.map((id) => normalizeSuiAddress(id)),
          eventTypes: events.map((event) => event.type),
        },
      };
    });
  }

  /** The catalog shipped with this version (`catalog.v1.json`). */
  static shipped(): EventCatalog {
    return new EventCatalog(JSON.parse(readFileSync(new URL('./catalog.v1.json', import.meta.url), 'utf8')));
  }

  protocols(network: CatalogNetwork): CatalogProtocol[] {
    return this.#entries.filter((entry) => entry.networks.includes(network)).map((entry) => entry.protocol);
  }

  /** Event types on `network`, optionally of one protocol and/or one package (a normalized address). */
  events(network: CatalogNetwork, filter: { protocol?: string | undefined; packageId?: string | undefined } = {}): CatalogEvent[] {
    return this.#entries
      .filter((entry) => entry.networks.includes(network) && (filter.protocol === undefined || entry.protocol.id === filter.protocol))
      .flatMap((entry) => entry.events)
      .filter((event) => filter.packageId === undefined || event.packageId === filter.packageId);
  }

  hasProtocol(network: CatalogNetwork, id: string): boolean {
    return this.protocols(network).some((protocol) => protocol.id === id);
  }
}
