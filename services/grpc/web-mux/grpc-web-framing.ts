/**
 * gRPC-Web framing (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md): the same
 * length-prefixed frames as gRPC, trailers sent as a last frame with flag 0x80, and a `-text`
 * variant that base64-encodes the body.
 */
export const TRAILER_FLAG = 0x80;

export function encodeTrailerFrame(trailers: Record<string, string>): Buffer {
  const text = Object.entries(trailers)
    .map(([key, value]) => `${key}: ${value}\r\n`)
    .join('');
  const payload = Buffer.from(text, 'utf8');
  const header = Buffer.alloc(5);
  header[0] = TRAILER_FLAG;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** Decodes a `-text` body: concatenated base64 chunks, each possibly padded. */
export function decodeTextBody(body: Buffer): Buffer {
  const text = body.toString('ascii').replace(/\s+/g, '');
  const chunks = text.split(/(?<==)(?=[^=])/);
  return Buffer.concat(chunks.map((chunk) => Buffer.from(chunk, 'base64')));
}

/** A request body's bytes as the gRPC server reads them, from its bytes as they arrive. */
export interface BodyDecoder {
  push(chunk: Buffer): Buffer;
  end(): Buffer;
}

/** The binary framings' body: as sent. */
export const BINARY_BODY: BodyDecoder = { push: (chunk) => chunk, end: () => Buffer.alloc(0) };

/**
 * Decodes a `-text` body as it arrives: whole base64 quanta (4 characters) at a time, the rest
 * kept for the next chunk. A padded quantum ends a chunk of the client's, so quanta decode alone.
 */
export class TextBodyDecoder implements BodyDecoder {
  #pending = '';

  push(chunk: Buffer): Buffer {
    const text = this.#pending + chunk.toString('ascii').replace(/\s+/g, '');
    const whole = text.length - (text.length % 4);
    this.#pending = text.slice(whole);
    return whole === 0 ? Buffer.alloc(0) : decodeTextBody(Buffer.from(text.slice(0, whole), 'ascii'));
  }

  /** An unpadded last quantum, decoded as far as it goes (as the whole body was before it was streamed). */
  end(): Buffer {
    const rest = Buffer.from(this.#pending, 'base64');
    this.#pending = '';
    return rest;
  }
}

/** Splits a byte stream into complete frames (for `-text` responses, encoded frame by frame). */
export class FrameSplitter {
  #pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const frames: Buffer[] = [];
    while (this.#pending.length >= 5) {
      const length = this.#pending.readUInt32BE(1);
      if (this.#pending.length < 5 + length) break;
      frames.push(this.#pending.subarray(0, 5 + length));
      this.#pending = this.#pending.subarray(5 + length);
    }
    return frames;
  }

  get remainder(): Buffer {
    return this.#pending;
  }
}
