/**
 * The largest request message the proxy forwards: gRPC's usual receive limit (grpc-js's
 * `grpc.max_receive_message_length` and tonic's decoding limit default to 4 MiB), the same on
 * native gRPC and gRPC-Web. A message is measured as sent (its length prefix), compressed or not.
 */
export const MAX_REQUEST_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Reads the 5-byte prefix of each gRPC message in a request body as the body passes, chunk by
 * chunk, without holding any of it: a message over the limit is known from its prefix, before
 * a byte of it is forwarded.
 */
export class RequestMessageLimit {
  readonly #maxBytes: number;
  readonly #prefix = Buffer.alloc(5);
  #prefixBytes = 0;
  /** Bytes of the current message still to pass. */
  #remaining = 0;

  constructor(maxBytes: number = MAX_REQUEST_MESSAGE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  get maxBytes(): number {
    return this.#maxBytes;
  }

  /** The length a message prefix in `chunk` declares over the limit, or undefined when every one is within it. */
  oversized(chunk: Buffer): number | undefined {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#remaining > 0) {
        const passed = Math.min(this.#remaining, chunk.length - offset);
        this.#remaining -= passed;
        offset += passed;
        continue;
      }
      const copied = chunk.copy(this.#prefix, this.#prefixBytes, offset, offset + 5 - this.#prefixBytes);
      this.#prefixBytes += copied;
      offset += copied;
      if (this.#prefixBytes < 5) continue;
      this.#prefixBytes = 0;
      const length = this.#prefix.readUInt32BE(1);
      if (length > this.#maxBytes) return length;
      this.#remaining = length;
    }
    return undefined;
  }
}
