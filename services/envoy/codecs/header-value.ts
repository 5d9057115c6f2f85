import { WireType } from '@protobuf-ts/runtime';
import type { HeaderValue } from '../envoy-types.js';
import { stringFieldSize, tagOf, type FrameWriter } from './wire.js';

/** `config.core.v3.HeaderValue` `key` and `value` (`raw_value` is never written). */
const KEY = tagOf(1, WireType.LengthDelimited);
const VALUE = tagOf(2, WireType.LengthDelimited);

export function headerValueSize(header: HeaderValue): number {
  return stringFieldSize(header.key) + stringFieldSize(header.value);
}

/** A HeaderValue as the embedded message `tag`. */
export function writeHeaderValue(writer: FrameWriter, tag: number, header: HeaderValue): void {
  writer.message(tag, headerValueSize(header)).stringField(KEY, header.key).stringField(VALUE, header.value);
}
