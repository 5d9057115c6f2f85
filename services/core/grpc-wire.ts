import type http2 from 'node:http2';
import { RpcError, type RpcMetadata } from '@protobuf-ts/runtime-rpc';

/**
 * gRPC's HTTP/2 framing and status rules (grpc/grpc PROTOCOL-HTTP2.md), for both sides of a call:
 * our upstream client, the gRPC proxy and the Envoy-facing services. Codes are names where the
 * client side hands them to protobuf-ts (`RpcError.code`).
 */

const STATUS_NAMES = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/** The name of a numeric `grpc-status`; anything outside the table is UNKNOWN (as grpc-js reports it). */
export function statusName(value: string | undefined): string {
  const code = Number(value);
  return STATUS_NAMES[code] ?? 'UNKNOWN';
}

/**
 * A call answered with an HTTP status other than 200 and no gRPC status: the code gRPC's
 * "HTTP to gRPC status code mapping" gives it (an intermediary's 503 is UNAVAILABLE, so the
 * breaker counts it as grpc-js would).
 */
export function statusOfHttp(httpStatus: number): string {
  switch (httpStatus) {
    case 400: return 'INTERNAL';
    case 401: return 'UNAUTHENTICATED';
    case 403: return 'PERMISSION_DENIED';
    case 404: return 'UNIMPLEMENTED';
    case 429: case 502: case 503: case 504: return 'UNAVAILABLE';
    default: return 'UNKNOWN';
  }
}

/** `grpc-timeout`: at most 8 digits, so long deadlines are sent in coarser units (rounded up: never shorter than ours). */
export function grpcTimeout(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 100_000_000) return `${whole}m`;
  const seconds = Math.ceil(whole / 1_000);
  return seconds < 100_000_000 ? `${seconds}S` : `${Math.min(Math.ceil(seconds / 3_600), 99_999_999)}H`;
}

/** `grpc-message` is percent-encoded UTF-8; a malformed one is shown as sent rather than lost. */
export function decodeGrpcMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value[0] ?? '' : value ?? '';
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const PASSES_AS_IS = /^[\x20-\x24\x26-\x7e]*$/;

/**
 * gRPC's percent-encoding of `grpc-message` (PROTOCOL-HTTP2.md): printable ASCII other than `%`
 * stays as is, every other byte of the UTF-8 form is `%XX`. (encodeURIComponent would also
 * escape `:` and `/`, which clients do not decode.)
 */
export function encodeGrpcMessage(message: string): string {
  // Most messages (every OK call's empty one) need no escape: no UTF-8 buffer per call for them.
  if (PASSES_AS_IS.test(message)) return message;
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `grpc-timeout` (an integer of 1 to 8 digits and a unit, gRPC's HTTP/2 protocol) in milliseconds; undefined when absent or malformed. */
export function parseGrpcTimeout(value: string | string[] | undefined): number | undefined {
  // Read by hand, not by a regular expression: Envoy sends it on every call, and a match allocates.
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.length < 2 || text.length > 9) return undefined;
  const unitAt = text.length - 1;
  let amount = 0;
  for (let index = 0; index < unitAt; index += 1) {
    const digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return undefined;
    amount = amount * 10 + digit;
  }
  const unitMs = timeoutUnitMs(text.charCodeAt(unitAt));
  return unitMs === undefined ? undefined : amount * unitMs;
}

function timeoutUnitMs(unit: number): number | undefined {
  switch (String.fromCharCode(unit)) {
    case 'H': return 3_600_000;
    case 'M': return 60_000;
    case 'S': return 1_000;
    case 'm': return 1;
    case 'u': return 0.001;
    case 'n': return 0.000_001;
    default: return undefined;
  }
}

/** One message in gRPC's length-prefixed framing: flag 0 (not compressed), 4-byte big-endian length, the bytes. */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

const NOT_METADATA = new Set([':status', 'content-type', 'grpc-status', 'grpc-message', 'te', 'grpc-encoding', 'grpc-accept-encoding']);

/**
 * Response headers or trailers as protobuf-ts metadata, the way `@protobuf-ts/grpc-transport`
 * hands grpc-js's over: the status fields and pseudo-headers left out, `-bin` values as padded
 * base64 (the wire may leave the padding off), repeated fields as arrays.
 */
export function metadataOf(headers: http2.IncomingHttpHeaders): RpcMetadata {
  const meta: RpcMetadata = {};
  for (const key in headers) {
    if (NOT_METADATA.has(key) || key.charCodeAt(0) === 0x3a) continue;
    const value = headers[key];
    if (value === undefined) continue;
    if (key.endsWith('-bin')) {
      const values = (Array.isArray(value) ? value : value.split(',')).map((v) => Buffer.from(v.trim(), 'base64').toString('base64'));
      meta[key] = values.length === 1 ? values[0]! : values;
    } else {
      meta[key] = Array.isArray(value) && value.length === 1 ? value[0]! : value;
    }
  }
  return meta;
}

/**
 * Reassembles length-prefixed messages from DATA chunks, which split and join messages freely.
 * A message is copied only when it spans chunks.
 */
export class GrpcMessageReader {
  readonly #maxLength: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Length of the message being read, once its prefix has arrived. */
  #expected = -1;

  constructor(maxLength: number) {
    this.#maxLength = maxLength;
  }

  /** Whether the data so far ended exactly at a message boundary. */
  get atBoundary(): boolean {
    return this.#buffered === 0;
  }

  /** Takes a chunk and hands over each message it completes; throws an RpcError for a frame we cannot take. */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): void {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    for (;;) {
      if (this.#expected < 0) {
        if (this.#buffered < 5) return;
        const head = this.#chunks[0]!.length >= 5 ? this.#chunks[0]! : this.#joined();
        if ((head[0]! & 1) !== 0) throw new RpcError('Received a compressed message, but no compression was negotiated', 'INTERNAL');
        const length = head.readUInt32BE(1);
        if (length > this.#maxLength) {
          throw new RpcError(`Received message larger than max (${length} vs. ${this.#maxLength})`, 'RESOURCE_EXHAUSTED');
        }
        this.#expected = length;
      }
      const end = 5 + this.#expected;
      if (this.#buffered < end) return;
      const all = this.#chunks.length === 1 ? this.#chunks[0]! : this.#joined();
      const message = all.subarray(5, end);
      this.#expected = -1;
      this.#buffered -= end;
      this.#chunks = this.#buffered === 0 ? [] : [all.subarray(end)];
      onMessage(message);
    }
  }

  #joined(): Buffer {
    const all = Buffer.concat(this.#chunks, this.#buffered);
    this.#chunks = [all];
    return all;
  }
}
