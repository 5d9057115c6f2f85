import { Ajv, type ValidateFunction } from 'ajv';
import { OPENRPC_DOCUMENT, OPENRPC_METHODS } from '../../services/jsonrpc/index.js';

/**
 * The OpenRPC document's result schemas, with the document's known wire deviations corrected
 * (real nodes, the SDK's types and the document's own examples agree; the generated schema does not):
 * - `SequenceNumber` (u64 object versions): a decimal string on the wire, an integer in the schema;
 * - `GenericSignature` (`txSignatures` items): a base64 string on the wire, a tagged object in the schema.
 * Everything else is validated as the document writes it.
 */
export const WIRE_EXCEPTIONS = {
  SequenceNumber: { schema: { type: 'string', pattern: '^[0-9]+$' }, reason: 'u64 versions travel as decimal strings (nodes, SDK types, the document\'s examples)' },
  GenericSignature: { schema: { type: 'string' }, reason: 'signatures travel as base64 strings of flag || signature || public key' },
} as const;

const UINT_BITS: Record<string, number> = { uint8: 8, uint16: 16, uint32: 32, uint64: 64, uint: 64 };

function createAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  for (const [format, bits] of Object.entries(UINT_BITS)) {
    const max = bits >= 53 ? Number.MAX_SAFE_INTEGER : 2 ** bits - 1;
    ajv.addFormat(format, { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= 0 && value <= max });
  }
  ajv.addFormat('double', { type: 'number', validate: (value: number) => Number.isFinite(value) });
  const schemas = { ...OPENRPC_DOCUMENT.components.schemas };
  for (const [name, exception] of Object.entries(WIRE_EXCEPTIONS)) schemas[name] = exception.schema;
  ajv.addSchema({ $id: 'wire', components: { schemas } });
  return ajv;
}

const ajv = createAjv();
const compiled = new Map<string, ValidateFunction>();

/** Null when `result` is valid against the method's result schema (with the wire exceptions), else why not. */
export function checkResult(method: string, result: unknown): string | null {
  let validate = compiled.get(method);
  if (!validate) {
    const spec = OPENRPC_METHODS.get(method);
    if (!spec) throw new Error(`no method ${method} in the document`);
    validate = ajv.compile(JSON.parse(JSON.stringify(spec.result).replaceAll('"#/components/', '"wire#/components/')) as object);
    compiled.set(method, validate);
  }
  if (validate(result)) return null;
  const error = validate.errors?.[0];
  return `${error?.message ?? 'invalid'} at ${error?.instancePath ?? ''} (${error?.schemaPath ?? ''})`;
}
