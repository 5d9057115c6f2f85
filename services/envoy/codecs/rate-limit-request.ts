import { WireType } from '@protobuf-ts/runtime';
import type { RateLimitDescriptor, RateLimitRequest } from '../envoy-types.js';
import { MalformedMessage } from '../unary-grpc-server.js';
import { tagOf, WireReader } from './wire.js';

const DOMAIN = tagOf(1, WireType.LengthDelimited);
const DESCRIPTORS = tagOf(2, WireType.LengthDelimited);
const HITS_ADDEND = tagOf(3, WireType.Varint);
/** `RateLimitDescriptor.entries`; `Entry.key`, `Entry.value`. */
const ENTRIES = tagOf(1, WireType.LengthDelimited);
const KEY = tagOf(1, WireType.LengthDelimited);
const VALUE = tagOf(2, WireType.LengthDelimited);

/**
 * `envoy.service.ratelimit.v3.RateLimitRequest`: the domain, every descriptor's entries (key and
 * value, the empty string when absent) and `hits_addend` (absent: undefined, which Envoy means as
 * 1). A descriptor's `limit` override and unknown fields are skipped; so is a known field number
 * sent with another wire type.
 */
export function decodeRateLimitRequest(bytes: Buffer): RateLimitRequest {
  try {
    const reader = new WireReader(bytes);
    const request: RateLimitRequest = { descriptors: [] };
    while (reader.pos < reader.length) {
      const tag = reader.tag();
      switch (tag) {
        case DOMAIN: request.domain = reader.string(); break;
        case DESCRIPTORS: request.descriptors!.push(readDescriptor(reader, reader.enter())); break;
        case HITS_ADDEND: request.hits_addend = reader.uint32(); break;
        default: reader.skip(tag);
      }
    }
    return request;
  } catch (error) {
    throw new MalformedMessage(`The RateLimitRequest does not decode: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function readDescriptor(reader: WireReader, end: number): RateLimitDescriptor {
  const entries: { key: string; value: string }[] = [];
  while (reader.pos < end) {
    const tag = reader.tag();
    if (tag !== ENTRIES) {
      reader.skip(tag);
      continue;
    }
    const entryEnd = reader.enter();
    let key = '';
    let value = '';
    while (reader.pos < entryEnd) {
      const field = reader.tag();
      if (field === KEY) key = reader.string();
      else if (field === VALUE) value = reader.string();
      else reader.skip(field);
    }
    entries.push({ key, value });
  }
  return { entries };
}
