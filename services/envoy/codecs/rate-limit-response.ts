import { WireType } from '@protobuf-ts/runtime';
import type { DescriptorStatus, RateLimitResponse } from '../envoy-types.js';
import { headerValueSize, writeHeaderValue } from './header-value.js';
import { delimitedSize, FrameWriter, tagOf, varintFieldSize } from './wire.js';

const DELIMITED = WireType.LengthDelimited;
/** `RateLimitResponse`. */
const OVERALL_CODE = tagOf(1, WireType.Varint);
const STATUSES = tagOf(2, DELIMITED);
const RESPONSE_HEADERS_TO_ADD = tagOf(3, DELIMITED);
const RAW_BODY = tagOf(5, DELIMITED);
/** `RateLimitResponse.DescriptorStatus`. */
const CODE = tagOf(1, WireType.Varint);
const CURRENT_LIMIT = tagOf(2, DELIMITED);
const LIMIT_REMAINING = tagOf(3, WireType.Varint);
const DURATION_UNTIL_RESET = tagOf(4, DELIMITED);
/** `RateLimitResponse.RateLimit`. */
const REQUESTS_PER_UNIT = tagOf(1, WireType.Varint);
const UNIT = tagOf(2, WireType.Varint);
/** `google.protobuf.Duration`. */
const SECONDS = tagOf(1, WireType.Varint);
const NANOS = tagOf(2, WireType.Varint);

/**
 * `envoy.service.ratelimit.v3.RateLimitResponse` as one gRPC frame: the overall code, one status
 * per descriptor (code, current limit, remaining, time until reset), the headers to add and the
 * raw body of a refusal, in field order, proto3 defaults left out.
 */
export function encodeRateLimitResponse(response: RateLimitResponse): Buffer {
  let size = varintFieldSize(response.overall_code);
  for (const status of response.statuses) size += delimitedSize(descriptorStatusSize(status));
  for (const header of response.response_headers_to_add) size += delimitedSize(headerValueSize(header));
  if (response.raw_body && response.raw_body.length > 0) size += delimitedSize(response.raw_body.length);
  const writer = new FrameWriter(size).varintField(OVERALL_CODE, response.overall_code);
  for (const status of response.statuses) writeDescriptorStatus(writer, status);
  for (const header of response.response_headers_to_add) writeHeaderValue(writer, RESPONSE_HEADERS_TO_ADD, header);
  writer.bytesField(RAW_BODY, response.raw_body);
  return writer.finish();
}

function rateLimitSize(limit: NonNullable<DescriptorStatus['current_limit']>): number {
  return varintFieldSize(limit.requests_per_unit) + varintFieldSize(limit.unit);
}

function durationSize(duration: NonNullable<DescriptorStatus['duration_until_reset']>): number {
  return varintFieldSize(duration.seconds) + varintFieldSize(duration.nanos);
}

function descriptorStatusSize(status: DescriptorStatus): number {
  return (
    varintFieldSize(status.code) +
    (status.current_limit ? delimitedSize(rateLimitSize(status.current_limit)) : 0) +
    varintFieldSize(status.limit_remaining ?? 0) +
    (status.duration_until_reset ? delimitedSize(durationSize(status.duration_until_reset)) : 0)
  );
}

function writeDescriptorStatus(writer: FrameWriter, status: DescriptorStatus): void {
  writer.message(STATUSES, descriptorStatusSize(status)).varintField(CODE, status.code);
  const limit = status.current_limit;
  if (limit) writer.message(CURRENT_LIMIT, rateLimitSize(limit)).varintField(REQUESTS_PER_UNIT, limit.requests_per_unit).varintField(UNIT, limit.unit);
  writer.varintField(LIMIT_REMAINING, status.limit_remaining ?? 0);
  const duration = status.duration_until_reset;
  if (duration) writer.message(DURATION_UNTIL_RESET, durationSize(duration)).varintField(SECONDS, duration.seconds).varintField(NANOS, duration.nanos);
}
