import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';

/** JSON Schema (draft 2020-12 subset) of a value as Sui renders Move values in JSON. */
export type JsonSchema = Record<string, unknown>;

const SMALL_INTEGERS: Record<string, number> = { u8: 255, u16: 65_535, u32: 4_294_967_295 };
const LARGE_INTEGERS = new Set(['u64', 'u128', 'u256']);
const TYPE_PARAMETER = /^T\d+$/;
const ADDRESS_SCHEMA: JsonSchema = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
const FRAMEWORK = normalizeSuiAddress('0x2');
const STD = normalizeSuiAddress('0x1');
const ID_TYPES = new Set([`${FRAMEWORK}::object::ID`, `${FRAMEWORK}::object::UID`]);
const STRING_TYPES = new Set([`${STD}::string::String`, `${STD}::ascii::String`]);

/** One spelling per Move type (full addresses), as the node and our stream filters write them. */
export function normalizeMoveType(type: string): string {
  const vector = /^vector<(.+)>$/.exec(type);
  if (vector) return `vector<${normalizeMoveType(vector[1]!)}>`;
  if (type in SMALL_INTEGERS || LARGE_INTEGERS.has(type) || type === 'bool' || type === 'address' || TYPE_PARAMETER.test(type)) return type;
  return normalizeStructTag(type);
}

/**
 * The JSON form of a field of a Move type: u64 and wider integers travel as decimal strings (a
 * stream's field filter compares them as strings), IDs and addresses as 0x + 64 hex, `Option<T>`
 * as T or null. A type parameter (`T0`) can be anything its instantiation is.
 */
export function fieldSchema(type: string): JsonSchema {
  const normalized = normalizeMoveType(type);
  if (normalized === 'bool') return { type: 'boolean' };
  if (normalized in SMALL_INTEGERS) return { type: 'integer', minimum: 0, maximum: SMALL_INTEGERS[normalized] };
  if (LARGE_INTEGERS.has(normalized)) return { type: 'string', pattern: '^[0-9]+$' };
  if (normalized === 'address' || ID_TYPES.has(normalized)) return ADDRESS_SCHEMA;
  if (TYPE_PARAMETER.test(normalized)) return { description: `type parameter ${normalized}: the instantiation's JSON form` };
  const vector = /^vector<(.+)>$/.exec(normalized);
  if (vector) return { type: 'array', items: fieldSchema(vector[1]!) };
  if (STRING_TYPES.has(normalized)) return { type: 'string' };
  const option = new RegExp(`^${STD}::option::Option<(.+)>$`).exec(normalized);
  if (option) return { anyOf: [fieldSchema(option[1]!), { type: 'null' }] };
  return { type: 'object', description: `Move struct ${normalized}` };
}
