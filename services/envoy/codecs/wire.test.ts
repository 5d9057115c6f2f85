import { BinaryReader, BinaryWriter, PbULong, WireType } from '@protobuf-ts/runtime';
import { describe, expect, it } from 'vitest';
import { delimitedSize, FrameWriter, tagOf, varintSize, WireReader } from './wire.js';

/** Every length at which a varint grows a byte, and one short of it, up to 2^53 - 1. */
const VARINT_EDGES = [0, 1, 127, 128, 16_383, 16_384, 2 ** 21 - 1, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 35 - 1, 2 ** 35, 2 ** 42 - 1, 2 ** 42, 2 ** 49 - 1, 2 ** 49, Number.MAX_SAFE_INTEGER];

describe('protobuf wire helpers', () => {
  it('writes varints as protobuf-ts writes them, at every size boundary, and measures them exactly', () => {
    for (const value of VARINT_EDGES) {
      const expected = new BinaryWriter().uint64(value).finish();
      const frame = new FrameWriter(varintSize(value)).varint(value).finish();
      expect([value, frame.subarray(5)]).toEqual([value, Buffer.from(expected)]);
      expect(PbULong.from(new BinaryReader(frame.subarray(5)).uint64().toString()).toNumber()).toBe(value);
    }
  });

  it('refuses what it cannot write as a varint, and a frame written to another size than measured', () => {
    for (const value of [-1, 0.5, 2 ** 53]) expect(() => new FrameWriter(10).varint(value)).toThrow(RangeError);
    expect(() => new FrameWriter(3).varint(1).finish()).toThrow('encoded 6 bytes into a frame of 8');
    expect(() => new FrameWriter(3).stringField(0x0a, 'abc')).toThrow('no room for a string of 3 bytes at 7');
  });

  it('frames a message: flag 0, big-endian length, the message; defaults left out, present messages kept', () => {
    const tag = tagOf(1, WireType.LengthDelimited);
    const frame = new FrameWriter(delimitedSize(0) + delimitedSize(2)).message(tag, 0).varintField(0x10, 0).stringField(0x1a, '').stringField(0x1a, 'é').finish();
    expect([...frame]).toEqual([0, 0, 0, 0, 6, 0x0a, 0, 0x1a, 2, 0xc3, 0xa9]);
  });

  it('reads fields, skips every wire type, and refuses what is not protobuf', () => {
    const bytes = new BinaryWriter()
      .tag(1, WireType.Varint).uint64('18446744073709551615')
      .tag(2, WireType.Bit64).fixed64(1)
      .tag(3, WireType.Bit32).fixed32(1)
      .tag(4, WireType.StartGroup).tag(1, WireType.Varint).int32(5).tag(4, WireType.EndGroup)
      .tag(5, WireType.LengthDelimited).string('déjà')
      .finish();
    const reader = new WireReader(Buffer.from(bytes));
    const seen: number[] = [];
    let text = '';
    while (reader.pos < reader.length) {
      const tag = reader.tag();
      seen.push(tag >>> 3);
      if (tag === tagOf(5, WireType.LengthDelimited)) text = reader.string();
      else reader.skip(tag);
    }
    expect([seen, text]).toEqual([[1, 2, 3, 4, 5], 'déjà']);
    const read = (raw: number[]) => () => {
      const r = new WireReader(Buffer.from(raw));
      while (r.pos < r.length) r.skip(r.tag());
    };
    expect(read([0x0a, 0x05, 0x61])).toThrow('premature end of message');
    expect(read([0x08, 0x80])).toThrow('premature end of message');
    expect(read([0x08, ...Array(10).fill(0x80), 0x01])).toThrow('invalid varint');
    expect(read([0x0f])).toThrow('cant skip wire type 7');
    expect(read([0x0c])).toThrow('cant skip wire type 4');
    expect(read([0x00])).toThrow('field 0');
    expect(read([0x0d, 0x01, 0x02])).toThrow('premature EOF');
  });
});
