import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { paramSchemaOf, resultSchemaOf, withWireExceptions } from './wire-exceptions.js';

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
  openrpc: string;
  info: { version: string; license?: unknown };
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
    params: method.params.map((param) => ({ name: param.name, required: param.required === true, schema: paramSchemaOf(method.name, param.name, param.schema) })),
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
  // verbose: a failed `oneOf` carries its branches, to name the variant that failed (variantError).
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true, verbose: true });
  for (const [format, bits] of Object.entries(UINT_BITS)) {
    const max = bits >= 53 ? Number.MAX_SAFE_INTEGER : 2 ** bits - 1;
    ajv.addFormat(format, { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= 0 && value <= max });
  }
  ajv.addFormat('double', { type: 'number', validate: (value: number) => Number.isFinite(value) });
  // The words of the document's `Hex` and `Digest` as checks (wire-exceptions.ts: addresses, ids, digests).
  ajv.addFormat('sui-address', /^(0x)?[0-9a-fA-F]{1,64}$/);
  ajv.addFormat('base58-digest', /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
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
  readonly #use: 'params' | 'results';
  /** Made on first use: loading the document's schemas is not free, and building the app needs none. */
  #ajv: Ajv | undefined;
  readonly #compiled = new Map<object, ValidateFunction>();

  constructor(use: 'params' | 'results') {
    this.#use = use;
  }

  /** Null when `value` is valid against `schema` (a schema object of the document), else the first error. */
  check(schema: object, value: unknown): string | null {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      this.#ajv ??= createAjv(this.#use);
      validate = this.#ajv.compile(anchored(schema));
      this.#compiled.set(schema, validate);
    }
    return validate(value) ? null : describe(validate.errors ?? []);
  }
}

function describe(errors: readonly ErrorObject[]): string {
  const error = variantError(errors) ?? errors[0];
  if (!error) return 'is invalid';
  const at = error.instancePath === '' ? '' : ` at ${error.instancePath}`;
  return `${error.message ?? 'is invalid'}${at}`;
}

/**
 * The document's enums of objects (filters, call args) are `oneOf` one-key variants, and Ajv
 * reports every branch's failure, the first branch's first: "must have required property 'All'"
 * for `{Sender: 5}`. Said instead: the variant's own failure, or that the variant is unknown.
 */
function variantError(errors: readonly ErrorObject[]): ErrorObject | undefined {
  const oneOf = errors.find((error) => error.keyword === 'oneOf');
  if (!oneOf || !Array.isArray(oneOf.schema) || oneOf.data === null || typeof oneOf.data !== 'object') return undefined;
  const variants = (oneOf.schema as { required?: string[] }[]).flatMap((branch) => branch.required?.length === 1 ? branch.required : []);
  const keys = Object.keys(oneOf.data);
  if (variants.length === 0 || keys.length !== 1) return undefined;
  const variant = keys[0]!;
  if (!variants.includes(variant)) {
    return { ...oneOf, message: `has an unknown variant '${variant}' (one of ${variants.join(', ')})` };
  }
  const inside = `${oneOf.instancePath}/${variant}`;
  return errors.find((error) => error.instancePath === inside || error.instancePath.startsWith(`${inside}/`));
}
