import { GraphQLError, valueFromASTUntyped } from 'graphql';
import type { ConstValueNode, GraphQLScalarType, GraphQLSchema } from 'graphql';

/**
 * How each custom scalar of Sui's schema travels, as Sui's GraphQL service sends and accepts it:
 * addresses as 0x-prefixed 64-digit lowercase hex, UInt53 as JSON numbers, BigInt as decimal
 * strings (u64/u128 amounts do not fit a JSON number), bytes as standard Base64, times as
 * ISO-8601 UTC, and layouts/signatures/JSON as plain JSON values.
 */
interface ScalarCoercion {
  output(value: unknown): unknown;
  input(value: unknown): unknown;
}

const MAX_UINT53 = Number.MAX_SAFE_INTEGER;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function invalid(scalar: string, value: unknown): GraphQLError {
  return new GraphQLError(`Invalid ${scalar}: ${JSON.stringify(value) ?? String(value)}`);
}

/** Accepts `0x` plus 1 to 64 hex digits and returns the canonical 64-digit form. */
export function parseSuiAddress(value: unknown): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
    throw invalid('SuiAddress', value);
  }
  return `0x${value.slice(2).toLowerCase().padStart(64, '0')}`;
}

function toUInt53(value: unknown): number {
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_UINT53) {
    throw invalid('UInt53', value);
  }
  return n;
}

function toBigIntString(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value).toString();
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value)) return BigInt(value).toString();
  throw invalid('BigInt', value);
}

function toBase64(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'string' && BASE64.test(value)) return value;
  throw invalid('Base64', value);
}

function toDateTime(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' || typeof value === 'bigint') {
    return new Date(Number(value)).toISOString();
  }
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) {
    return new Date(value).toISOString();
  }
  throw invalid('DateTime', value);
}

const json: ScalarCoercion = { output: (v) => v, input: (v) => v };

const COERCIONS: Record<string, ScalarCoercion> = {
  SuiAddress: { output: parseSuiAddress, input: parseSuiAddress },
  UInt53: { output: toUInt53, input: toUInt53 },
  BigInt: { output: toBigIntString, input: toBigIntString },
  Base64: { output: toBase64, input: toBase64 },
  DateTime: { output: toDateTime, input: toDateTime },
  JSON: json,
  MoveTypeLayout: json,
  MoveTypeSignature: json,
  OpenMoveTypeSignature: json,
};

/** Replaces the identity coercions `buildSchema` gives custom scalars with Sui's wire formats. */
export function installScalars(schema: GraphQLSchema): void {
  for (const [name, coercion] of Object.entries(COERCIONS)) {
    const type = schema.getType(name) as GraphQLScalarType | undefined;
    if (!type) throw new Error(`schema has no scalar ${name}`);
    type.coerceOutputValue = coercion.output;
    type.coerceInputValue = coercion.input;
    type.coerceInputLiteral = (ast: ConstValueNode) => coercion.input(valueFromASTUntyped(ast));
  }
}
