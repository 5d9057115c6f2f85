import { describe, expect, it } from 'vitest';
import { RequestMessageLimit } from './request-message-limit.js';

/** One gRPC message frame: its 5-byte prefix (declaring `size`) and `body` bytes of it. */
function frame(size: number, body = size): Buffer {
  const bytes = Buffer.alloc(5 + body);
  bytes.writeUInt32BE(size, 1);
  return bytes;
}

/** Feeds `body` in chunks of `chunkBytes`; the first oversized length found, if any. */
function firstOversized(limit: RequestMessageLimit, body: Buffer, chunkBytes: number): number | undefined {
  for (let offset = 0; offset < body.length; offset += chunkBytes) {
    const found = limit.oversized(body.subarray(offset, offset + chunkBytes));
    if (found !== undefined) return found;
  }
  return undefined;
}

describe('RequestMessageLimit', () => {
  it.each([1, 2, 3, 7, 1000])('finds the message over the limit after others within it, whatever the chunking (%i bytes a chunk)', (chunkBytes) => {
    const body = Buffer.concat([frame(10), frame(0), frame(10), frame(11, 3)]);
    expect(firstOversized(new RequestMessageLimit(10), body, chunkBytes)).toBe(11);
    expect(firstOversized(new RequestMessageLimit(11), body, chunkBytes)).toBeUndefined();
  });

  it('reads a message body that looks like a prefix as body, not as a prefix', () => {
    const inner = frame(1_000, 0);
    const body = Buffer.concat([frame(5, 0), inner, frame(1)]);
    expect(firstOversized(new RequestMessageLimit(5), body, 4)).toBeUndefined();
  });
});
