import { errorResponse, STANDARD_MESSAGES, type JsonRpcResponse } from './envelope.js';
import { JSONRPC_ERROR } from './method.js';

/**
 * The bound on the bytes of a JSON-RPC answer, as a Sui node's server (jsonrpsee) bounds its
 * responses: `max_response_body_size`. Each call's answer is bounded on its own, and a batch's
 * whole answer (`[`, the answers, their commas, `]`) by the same number.
 *
 * - One call over it is answered, in its place, `{code: -32008, message: "Response is too big",
 *   data: "Exceeded max limit of N"}` with its id (jsonrpsee's `MethodResponse::response`).
 * - A batch over it is one `{code: -32011, message: "The batch response was too large", data:
 *   "Exceeded max limit of N"}` with id null, instead of the array (jsonrpsee's
 *   `BatchResponseBuilder::append` / `reject_too_big_batch_response`).
 *
 * A node sets 2 GiB (`MAX_REQUEST_SIZE = 2 << 30` in sui-json-rpc, passed to jsonrpsee's
 * `max_response_body_size`) and refuses batches altogether (-32005); the gateway serves batches
 * of up to 50 calls, so its default is jsonrpsee's own default, 10 MiB (docs/jsonrpc.md).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** The bound counts bytes on the wire (UTF-8), not UTF-16 units. */
function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Whether `text` is at most `max` bytes of UTF-8. A UTF-16 unit takes at most 3 bytes, so a text
 * of up to max / 3 units is under without a second pass over it (nearly every answer).
 */
function fits(text: string, max: number): boolean {
  return text.length * 3 <= max || byteLength(text) <= max;
}

function exceeded(max: number): string {
  return `Exceeded max limit of ${max}`;
}

/** One call's answer as wire text, or the -32008 that replaces it when it is over `max` bytes. */
export function serializeCallAnswer(response: JsonRpcResponse, max: number): string {
  const text = JSON.stringify(response);
  if (fits(text, max)) return text;
  return JSON.stringify(errorResponse(response.id, {
    code: JSONRPC_ERROR.responseTooBig, message: STANDARD_MESSAGES[JSONRPC_ERROR.responseTooBig]!, data: exceeded(max),
  }));
}

/**
 * A batch's answer, assembled as its calls finish (kept in the calls' order). Once the answers so
 * far are over the bound, the batch is refused: what was kept is dropped and no later answer is
 * serialized, so the gateway never holds more than `max` bytes of a batch it will not send.
 */
export class BatchAnswer {
  readonly #max: number;
  readonly #texts: (string | undefined)[];
  /** `[` plus, per kept answer, its bytes and its `,` (the last one's is the closing `]`). */
  #bytes = 1;
  #tooBig = false;

  constructor(calls: number, max: number) {
    this.#max = max;
    this.#texts = new Array<string | undefined>(calls);
  }

  get tooBig(): boolean {
    return this.#tooBig;
  }

  get empty(): boolean {
    return this.#bytes === 1 && !this.#tooBig;
  }

  /** Keeps the answer of call `index`; false when the batch is (now) over the bound. */
  add(index: number, response: JsonRpcResponse): boolean {
    if (this.#tooBig) return false;
    const text = serializeCallAnswer(response, this.#max);
    const bytes = this.#bytes + byteLength(text) + 1;
    if (bytes > this.#max) {
      this.#tooBig = true;
      this.#texts.fill(undefined);
      return false;
    }
    this.#texts[index] = text;
    this.#bytes = bytes;
    return true;
  }

  /** The wire text: the answers in the calls' order, or the -32011 that replaces them. */
  text(): string {
    if (this.#tooBig) {
      return JSON.stringify(errorResponse(null, {
        code: JSONRPC_ERROR.batchResponseTooBig, message: STANDARD_MESSAGES[JSONRPC_ERROR.batchResponseTooBig]!, data: exceeded(this.#max),
      }));
    }
    return `[${this.#texts.filter((text) => text !== undefined).join(',')}]`;
  }
}
