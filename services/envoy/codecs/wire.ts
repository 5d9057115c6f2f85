import { BinaryReader, WireType } from '@protobuf-ts/runtime';

/**
 * Protobuf's wire format for the few Envoy messages the services read and write
 * (https://protobuf.dev/programming-guides/encoding/), hand-written instead of loading Envoy's
 * protos at run time: ext_authz and the RLS decode one request and encode one answer per call.
 */

/** A field's tag as it is on the wire: field number << 3 | wire type (one byte for fields 1 to 15). */
export function tagOf(field: number, wireType: WireType): number {
  return (field << 3) | wireType;
}

/**
 * Reads a message: varints and unknown fields by @protobuf-ts/runtime's BinaryReader, strings
 * straight from the Buffer (no TextDecoder per string: lenient with invalid UTF-8, as
 * protobufjs is, and faster for the short strings of headers). Throws on anything that is not
 * well-formed protobuf (a length past the end, a wire type that does not exist, field 0); the
 * codecs turn that into a MalformedMessage.
 */
export class WireReader {
  readonly #bytes: Buffer;
  readonly #reader: BinaryReader;
  /** Where the last field entered starts. */
  #start = 0;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
    this.#reader = new BinaryReader(bytes, NO_TEXT_DECODER);
  }

  get pos(): number {
    return this.#reader.pos;
  }

  get length(): number {
    return this.#reader.len;
  }

  /** The next field's tag. */
  tag(): number {
    const tag = this.#reader.uint32();
    if (tag >>> 3 === 0) throw new Error(`illegal tag ${tag}: field 0`);
    return tag;
  }

  uint32(): number {
    return this.#reader.uint32();
  }

  /** A length-delimited field as UTF-8 text. */
  string(): string {
    const end = this.enter();
    this.#reader.pos = end;
    return this.#bytes.toString('utf8', this.#start, end);
  }

  /**
   * Skips a length-delimited field and returns where it was, for `stringAt` to read it later: a
   * header's value is only worth decoding once its name (which may come after it) is known.
   */
  skipDelimited(): number {
    const at = this.#reader.pos;
    this.#reader.pos = this.enter();
    return at;
  }

  /** The text of the length-delimited field `skipDelimited` passed at `at`; the reader stays where it is. */
  stringAt(at: number, encoding: 'utf8' | 'latin1'): string {
    const pos = this.#reader.pos;
    this.#reader.pos = at;
    const end = this.enter();
    this.#reader.pos = pos;
    return this.#bytes.toString(encoding, this.#start, end);
  }

  /** Enters a length-delimited field (an embedded message): returns where it ends; the reader is at its first byte. */
  enter(): number {
    const length = this.#reader.uint32();
    this.#start = this.#reader.pos;
    const end = this.#start + length;
    if (end > this.#reader.len) throw new RangeError('premature end of message');
    return end;
  }

  /** Skips the value of a field we do not read (unknown fields included), whatever its wire type. */
  skip(tag: number): void {
    const wireType = tag & 7;
    if (wireType === WireType.LengthDelimited) {
      this.#reader.pos = this.enter();
    } else if (wireType === WireType.Varint) {
      this.#skipVarint();
    } else {
      // Fixed 32/64-bit values and groups; BinaryReader refuses wire types 6 and 7 and a stray end of group.
      this.#reader.skip(wireType);
    }
  }

  /** Past a varint of up to 10 bytes, without making a 64-bit value of it. */
  #skipVarint(): void {
    let pos = this.#reader.pos;
    for (let read = 1; ; read += 1) {
      if (pos >= this.#reader.len) throw new RangeError('premature end of message');
      if ((this.#bytes[pos++]! & 0x80) === 0) break;
      if (read === 10) throw new Error('invalid varint');
    }
    this.#reader.pos = pos;
  }
}

const NO_TEXT_DECODER = {
  decode(): string {
    throw new Error('strings are read by WireReader.string()');
  },
};

/** Bytes of a varint (a non-negative integer up to 2^53). */
export function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  let size = 5;
  for (let rest = Math.floor(value / 0x800000000); rest > 0; rest = Math.floor(rest / 0x80)) size += 1;
  return size;
}

/** Bytes of a length-delimited field of `length` bytes (tag of fields 1 to 15, length, payload). */
export function delimitedSize(length: number): number {
  return 1 + varintSize(length) + length;
}

/** Bytes of a varint field, or 0 for proto3's default (zero is not written). */
export function varintFieldSize(value: number): number {
  return value === 0 ? 0 : 1 + varintSize(value);
}

/** Bytes of a string field, or 0 for the empty string (proto3's default). */
export function stringFieldSize(value: string | undefined): number {
  return value ? delimitedSize(Buffer.byteLength(value)) : 0;
}

/** Bytes of one element of a repeated string field: written even when empty. */
export function repeatedStringSize(value: string): number {
  return delimitedSize(Buffer.byteLength(value));
}

/**
 * Writes one message as one gRPC frame (5-byte prefix, then the message) into a Buffer of the
 * size measured beforehand: no intermediate chunks, one allocation per answer. Tags are single
 * bytes (fields 1 to 15), which is all the Envoy messages written here use.
 */
export class FrameWriter {
  readonly #frame: Buffer;
  #pos = 5;

  constructor(messageSize: number) {
    this.#frame = Buffer.allocUnsafe(5 + messageSize);
    this.#frame[0] = 0;
    this.#frame.writeUInt32BE(messageSize, 1);
  }

  varint(value: number): this {
    if (value < 0 || !Number.isSafeInteger(value)) throw new RangeError(`${value} is not a varint this writer writes`);
    const frame = this.#frame;
    let rest = value;
    while (rest >= 0x80000000) {
      frame[this.#pos++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    while (rest > 0x7f) {
      frame[this.#pos++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    frame[this.#pos++] = rest;
    return this;
  }

  /** A varint field, skipped when zero (proto3's default). */
  varintField(tag: number, value: number): this {
    if (value === 0) return this;
    this.#frame[this.#pos++] = tag;
    return this.varint(value);
  }

  /** A string field, skipped when empty (proto3's default). */
  stringField(tag: number, value: string | undefined): this {
    return value ? this.repeatedString(tag, value) : this;
  }

  /** One element of a repeated string field, written even when empty. */
  repeatedString(tag: number, value: string): this {
    this.#frame[this.#pos++] = tag;
    const length = Buffer.byteLength(value);
    this.varint(length);
    // Buffer.write stops silently where the frame ends: a string measured short must not pass unnoticed.
    if (this.#frame.write(value, this.#pos) !== length) throw new Error(`no room for a string of ${length} bytes at ${this.#pos}`);
    this.#pos += length;
    return this;
  }

  /** A bytes field, skipped when empty. */
  bytesField(tag: number, value: Uint8Array | undefined): this {
    if (!value || value.length === 0) return this;
    this.#frame[this.#pos++] = tag;
    this.varint(value.length);
    this.#frame.set(value, this.#pos);
    this.#pos += value.length;
    return this;
  }

  /** The head of an embedded message of `size` bytes (always written, even empty: a present message is not a default). */
  message(tag: number, size: number): this {
    this.#frame[this.#pos++] = tag;
    return this.varint(size);
  }

  /** The frame, checked to be exactly as measured. */
  finish(): Buffer {
    if (this.#pos !== this.#frame.length) throw new Error(`encoded ${this.#pos} bytes into a frame of ${this.#frame.length}`);
    return this.#frame;
  }
}
