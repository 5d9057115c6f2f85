import { BinaryWriter, WireType } from '@protobuf-ts/runtime';
import { describe, expect, it } from 'vitest';
import { rateLimitService } from '../../../test/support/envoy-protos.js';
import { MalformedMessage } from '../unary-grpc-server.js';
import { decodeRateLimitRequest } from './rate-limit-request.js';

/** protobufjs (Envoy's protos through proto-loader): the reference our decoder is held against. */
const ShouldRateLimit = rateLimitService().service['ShouldRateLimit']!;
const encode = (message: unknown) => ShouldRateLimit.requestSerialize(message);
const reference = (bytes: Buffer) => ShouldRateLimit.requestDeserialize(bytes) as { domain: string; descriptors: { entries: { key: string; value: string }[] }[]; hits_addend: number };

const UNKNOWN = Buffer.from(new BinaryWriter()
  .tag(99, WireType.Varint).int32(-1)
  .tag(98, WireType.Bit64).fixed64(7)
  .tag(97, WireType.Bit32).fixed32(7)
  .tag(96, WireType.StartGroup).tag(96, WireType.EndGroup)
  .tag(95, WireType.LengthDelimited).string('later')
  .finish());

const field = (number: number, bytes: Uint8Array) => Buffer.from(new BinaryWriter().tag(number, WireType.LengthDelimited).bytes(bytes).finish());

describe('decodeRateLimitRequest, held against protobufjs on Envoy\'s protos', () => {
  it('reads the domain, every descriptor\'s entries and hits_addend; a descriptor\'s limit override is skipped', () => {
    const message = {
      domain: 'suigw',
      descriptors: [
        { entries: [{ key: 'identity', value: 'tok.en' }, { key: 'remote_address', value: '203.0.113.7' }], limit: { requests_per_unit: 5, unit: 'SECOND' } },
        { entries: [{ key: 'other', value: 'déjà' }] },
      ],
      hits_addend: 3,
    };
    const bytes = encode(message);
    const theirs = reference(bytes);
    const ours = decodeRateLimitRequest(bytes);
    expect(ours).toEqual({ domain: theirs.domain, descriptors: theirs.descriptors.map(({ entries }) => ({ entries })), hits_addend: theirs.hits_addend });
    expect(ours.descriptors).toEqual(message.descriptors.map(({ entries }) => ({ entries })));
  });

  it('an empty request: no descriptors, domain and hits_addend absent (Envoy means 1 hit)', () => {
    expect(decodeRateLimitRequest(Buffer.alloc(0))).toEqual({ descriptors: [] });
    expect(decodeRateLimitRequest(encode({ descriptors: [{}, { entries: [{}] }] }))).toEqual({ descriptors: [{ entries: [] }, { entries: [{ key: '', value: '' }] }] });
    expect(decodeRateLimitRequest(encode({ hits_addend: 4_294_967_295 })).hits_addend).toBe(4_294_967_295);
  });

  it('unknown fields of every wire type at every level change nothing', () => {
    const entry = new BinaryWriter().tag(1, WireType.LengthDelimited).string('identity').tag(2, WireType.LengthDelimited).string('t').finish();
    const descriptor = Buffer.concat([UNKNOWN, field(1, Buffer.concat([UNKNOWN, entry, UNKNOWN])), UNKNOWN]);
    const bytes = Buffer.concat([UNKNOWN, encode({ domain: 'suigw' }), field(2, descriptor), UNKNOWN]);
    expect(decodeRateLimitRequest(bytes)).toEqual({ domain: 'suigw', descriptors: [{ entries: [{ key: 'identity', value: 't' }] }] });
    // A known field number with another wire type: skipped.
    const odd = new BinaryWriter().tag(1, WireType.Varint).int32(1).tag(3, WireType.LengthDelimited).string('x').tag(2, WireType.Bit32).fixed32(0).finish();
    expect(decodeRateLimitRequest(Buffer.from(odd))).toEqual({ descriptors: [] });
  });

  it('anything that is not well-formed protobuf is a MalformedMessage; every cut of a request included', () => {
    for (const bytes of [[0x12, 0x05, 0x0a], [0x7f], [0x00], [0x18], [0x12, 0x02, 0x0a, 0x09]]) {
      expect(() => decodeRateLimitRequest(Buffer.from(bytes))).toThrow(MalformedMessage);
    }
    const bytes = encode({ domain: 'suigw', descriptors: [{ entries: [{ key: 'identity', value: 'x'.repeat(300) }] }], hits_addend: 1 });
    for (let cut = 0; cut < bytes.length; cut += 1) {
      try {
        decodeRateLimitRequest(bytes.subarray(0, cut));
      } catch (error) {
        expect(error).toBeInstanceOf(MalformedMessage);
      }
    }
  });
});
