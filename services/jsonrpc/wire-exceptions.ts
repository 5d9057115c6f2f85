/**
 * Where Sui's OpenRPC document (generated from Rust types) disagrees with the wire that real
 * nodes, the SDK's types and the document's own examples agree on, we follow the wire. Each
 * exception replaces one schema of the document's `components.schemas`, or one method's result
 * schema, for param validation here (`scope` 'params' or 'both') and for result validation in
 * the conformance suite (test/jsonrpc/conformance.test.ts; 'results' or 'both'): the one list,
 * with its reasons.
 */
export interface WireException {
  /** The schema's name under `components.schemas`, the method whose result schema is replaced, or one param of a method. */
  target: { schema: string } | { methodResult: string } | { methodParam: { method: string; param: string } };
  scope: 'params' | 'results' | 'both';
  /** What the wire carries instead. */
  replacement: object;
  reason: string;
}

const U64_STRING = { type: 'string', pattern: '^(0|[1-9][0-9]{0,19})$' };
const U64_NUMBER = { type: 'integer', minimum: 0 };
/** This gateway's page cursors: opaque signed strings where the document types an id or a digest. */
const OPAQUE_CURSOR = { anyOf: [{ type: 'string' }, { type: 'null' }] };
const OPAQUE_CURSOR_METHODS = ['suix_getDynamicFields', 'suix_getOwnedObjects', 'suix_queryTransactionBlocks', 'suix_resolveNameServiceNames'];
const OPAQUE_CURSOR_REASON = 'the cursor is the nextCursor this gateway returned (an opaque signed string, docs/jsonrpc.md): a legacy cursor cannot be resumed upstream, so the slot typed as an object id or a digest carries our string';
/** 1 to 64 hex digits, `0x` optional (a node reads `0x2` and full-length ids alike): the format `sui-address` (openrpc.ts). */
const HEX_ADDRESS = { type: 'string', format: 'sui-address' };

export const WIRE_EXCEPTIONS: readonly WireException[] = [
  {
    target: { schema: 'SequenceNumber' },
    scope: 'both',
    replacement: { anyOf: [U64_STRING, U64_NUMBER] },
    reason: 'u64 SequenceNumber (object versions) travels as a decimal string: nodes serialize it through BigInt, the SDK types it `string`, and the document\'s own examples show "version": "1"; as a param the SDK sends numbers in some calls (tryGetPastObject) and strings in others (tryMultiGetPastObjects)',
  },
  {
    target: { schema: 'BigInt_for_uint64' },
    scope: 'params',
    // Still any string: sui_getCheckpoints' `cursor` has this schema, and our cursors are opaque.
    replacement: { anyOf: [{ type: 'string' }, U64_NUMBER] },
    reason: 'u64 params documented as strings (sui_tryGetPastObject\'s `version`, suix_getCommitteeInfo\'s `epoch`) are sent as JSON numbers by the SDK; a node accepts both',
  },
  {
    target: { schema: 'GenericSignature' },
    scope: 'both',
    replacement: { type: 'string' },
    reason: '`txSignatures` items are base64 strings of the serialized signature on the wire and in the SDK\'s types; the document describes the Rust enum',
  },
  {
    target: { schema: 'SuiAddress' },
    scope: 'params',
    replacement: HEX_ADDRESS,
    reason: 'the document types addresses as any string ("Hex string encoding" in words); a node refuses anything that is not hex as an invalid address, where an unchecked "" or "zz" would become the zero address or an empty answer',
  },
  {
    target: { schema: 'ObjectID' },
    scope: 'params',
    replacement: HEX_ADDRESS,
    reason: 'object ids are addresses: the same words, the same refusal on a node',
  },
  {
    target: { schema: 'Digest' },
    scope: 'params',
    replacement: { type: 'string', format: 'base58-digest' },
    reason: 'a digest is "a representation of a 32 byte digest" in Base58 (any string in the schema): a node refuses anything else',
  },
  ...OPAQUE_CURSOR_METHODS.map((method): WireException => ({
    target: { methodParam: { method, param: 'cursor' } }, scope: 'params', replacement: OPAQUE_CURSOR, reason: OPAQUE_CURSOR_REASON,
  })),
  {
    target: { methodResult: 'suix_resolveNameServiceAddress' },
    scope: 'results',
    replacement: { anyOf: [{ $ref: '#/components/schemas/SuiAddress' }, { type: 'null' }] },
    reason: 'a name that resolves to nothing answers null (the Rust result is Option<SuiAddress>; the SDK types it `string | null`)',
  },
  {
    target: { methodResult: 'suix_getCoinMetadata' },
    scope: 'results',
    replacement: { anyOf: [{ $ref: '#/components/schemas/SuiCoinMetadata' }, { type: 'null' }] },
    reason: 'a coin type without metadata answers null (Option<SuiCoinMetadata>; the SDK types it `CoinMetadata | null`)',
  },
];

function applies(exception: WireException, use: 'params' | 'results'): boolean {
  return exception.scope === 'both' || exception.scope === use;
}

/** The document's schemas with the schema-level exceptions for params or results applied. */
export function withWireExceptions(schemas: Record<string, unknown>, use: 'params' | 'results'): Record<string, unknown> {
  const patched = { ...schemas };
  for (const exception of WIRE_EXCEPTIONS) {
    if ('schema' in exception.target && applies(exception, use)) patched[exception.target.schema] = exception.replacement;
  }
  return patched;
}

/** A method's result schema, with its method-level exception if it has one. */
export function resultSchemaOf(method: string, documented: object): object {
  const exception = WIRE_EXCEPTIONS.find((entry) => 'methodResult' in entry.target && entry.target.methodResult === method && applies(entry, 'results'));
  return exception?.replacement ?? documented;
}

/** A method's param schema, with its param-level exception if it has one. */
export function paramSchemaOf(method: string, param: string, documented: object): object {
  const exception = WIRE_EXCEPTIONS.find((entry) => 'methodParam' in entry.target
    && entry.target.methodParam.method === method && entry.target.methodParam.param === param && applies(entry, 'params'));
  return exception?.replacement ?? documented;
}
