import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { resultSchemaOf, withWireExceptions } from './wire-exceptions.js';

/**
 * Sui's own OpenRPC document (spec/sui-openrpc.json, version 1.78.2, 56 methods): the method
 * set, each method's param names and order, and the JSON Schemas params are validated against.
 */

export interface OpenRpcParam {
  name: string;
  required: boolean;
  schema: object;
}

export interface OpenRpcMethodSpec {
  name: string;
  params: readonly OpenRpcParam[];
  result: object;
}

interface OpenRpcDocumentJson {
  methods: { name: string; params: { name: string; required?: boolean; schema: object }[]; result: { schema: object } }[];
  components: { schemas: Record<string, unknown> };
}

const DOCUMENT_ID = 'sui-openrpc';

export const OPENRPC_DOCUMENT = JSON.parse(
  readFileSync(new URL('./spec/sui-openrpc.json', import.meta.url), 'utf8'),
) as OpenRpcDocumentJson;

/** Every method of the document, by name. */
export const OPENRPC_METHODS: ReadonlyMap<string, OpenRpcMethodSpec> = new Map(
  OPENRPC_DOCUMENT.methods.map((method) => [method.name, {
    name: method.name,
    params: method.params.map((param) => ({ name: param.name, required: param.required === true, schema: param.schema })),
    result: resultSchemaOf(method.name, method.result.schema),
  }]),
);

const UINT_BITS: Record<string, number> = { uint8: 8, uint16: 16, uint32: 32, uint64: 64, uint: 64 };

/**
 * One Ajv instance holding the whole document, so every `#/components/schemas/X` reference of a
 * param or result schema resolves against it. The document's Rust number formats (`uint8` ...
 * `uint64`, `double`) are checked as the ranges they name; the wire exceptions (wire-exceptions.ts)
 * replace the schemas the document gets wrong.
 */
function createAjv(use: 'params' | 'results'): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  for (const [format, bits] of Object.entries(UINT_BITS)) {
    const max = bits >= 53 ? Number.MAX_SAFE_INTEGER : 2 ** bits - 1;
    ajv.addFormat(format, { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= 0 && value <= max });
  }
  ajv.addFormat('double', { type: 'number', validate: (value: number) => Number.isFinite(value) });
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: withWireExceptions(OPENRPC_DOCUMENT.components.schemas, use) } });
  return ajv;
}

/** Rewrites the document's local references to point into the schema registered as DOCUMENT_ID. */
function anchored(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) as object;
}

/**
 * Compiled validators of the document's schemas, made once per schema on first use. `use` says
 * which wire exceptions apply: the gateway validates params, the conformance suite results.
 */
export class OpenRpcSchemas {
  readonly #ajv: Ajv;
  readonly #compiled = new Map<object, ValidateFunction>();

  constructor(use: 'params' | 'results') {
    this.#ajv = createAjv(use);
  }

  /** Null when `value` is valid against `schema` (a schema object of the document), else the first error. */
  check(schema: object, value: unknown): string | null {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      validate = this.#ajv.compile(anchored(schema));
      this.#compiled.set(schema, validate);
    }
    return validate(value) ? null : describe(validate.errors?.[0]);
  }
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'is invalid';
  const at = error.instancePath === '' ? '' : ` at ${error.instancePath}`;
  return `${error.message ?? 'is invalid'}${at}`;
}
