import { describe, expect, it } from 'vitest';
import { rateLimitService } from '../../../test/support/envoy-protos.js';
import type { RateLimitResponse } from '../envoy-types.js';
import { encodeRateLimitResponse } from './rate-limit-response.js';

/** protobufjs (Envoy's protos through proto-loader): the reference our encoder is held against. */
const ShouldRateLimit = rateLimitService().service['ShouldRateLimit']!;

function decoded(frame: Buffer): Record<string, unknown> {
  expect([frame[0], frame.readUInt32BE(1)]).toEqual([0, frame.length - 5]);
  return ShouldRateLimit.responseDeserialize(frame.subarray(5)) as Record<string, unknown>;
}

/** What a proto-loader client fills in for fields a message leaves out. */
const RESPONSE_DEFAULTS = { request_headers_to_add: [], raw_body: Buffer.alloc(0), dynamic_metadata: null, quota: null };
const STATUS_DEFAULTS = { current_limit: null, limit_remaining: 0, duration_until_reset: null, quota: null };

describe('encodeRateLimitResponse, read back by protobufjs on Envoy\'s protos', () => {
  it('admitted: a status per descriptor with the limit, what remains and the time until reset', () => {
    const status = { code: 1, current_limit: { requests_per_unit: 50, unit: 1 }, limit_remaining: 49, duration_until_reset: { seconds: 1, nanos: 250_000_000 } };
    expect(decoded(encodeRateLimitResponse({ overall_code: 1, statuses: [status, status], response_headers_to_add: [] }))).toEqual({
      ...RESPONSE_DEFAULTS,
      overall_code: 1,
      statuses: [status, status].map((s) => ({ ...STATUS_DEFAULTS, ...s, current_limit: { ...s.current_limit, name: '' }, duration_until_reset: { seconds: '1', nanos: 250_000_000 } })),
      response_headers_to_add: [],
    });
  });

  it('refused: headers to add and the raw body; the same bytes protobufjs writes', () => {
    const response: RateLimitResponse = {
      overall_code: 2,
      statuses: [{ code: 2, current_limit: { requests_per_unit: 10, unit: 1 }, limit_remaining: 3, duration_until_reset: { seconds: 2, nanos: 5 } }],
      response_headers_to_add: [{ key: 'content-type', value: 'application/json; charset=utf-8' }, { key: 'retry-after', value: '1' }, { key: 'x-note', value: 'déjà' }],
      raw_body: Buffer.from(JSON.stringify({ error: 'Rate limit exceeded ✓', code: 'RATE_LIMIT_EXCEEDED', requestId: 'r' })),
    };
    const frame = encodeRateLimitResponse(response);
    expect(decoded(frame)).toEqual({
      ...RESPONSE_DEFAULTS,
      overall_code: 2,
      statuses: [{ ...STATUS_DEFAULTS, ...response.statuses[0], current_limit: { requests_per_unit: 10, unit: 1, name: '' }, duration_until_reset: { seconds: '2', nanos: 5 } }],
      response_headers_to_add: response.response_headers_to_add.map((h) => ({ ...h, raw_value: Buffer.alloc(0) })),
      raw_body: response.raw_body,
    });
    expect(frame.subarray(5)).toEqual(ShouldRateLimit.responseSerialize(response));
  });

  it('the smallest answers: OK with code-only statuses, with none, and zeros left out (read back as zeros)', () => {
    expect(decoded(encodeRateLimitResponse({ overall_code: 1, statuses: [{ code: 1 }], response_headers_to_add: [] }))).toEqual({
      ...RESPONSE_DEFAULTS, overall_code: 1, statuses: [{ ...STATUS_DEFAULTS, code: 1 }], response_headers_to_add: [],
    });
    expect([...encodeRateLimitResponse({ overall_code: 1, statuses: [], response_headers_to_add: [] })]).toEqual([0, 0, 0, 0, 2, 0x08, 1]);
    const zeros = { code: 0, current_limit: { requests_per_unit: 0, unit: 0 }, limit_remaining: 0, duration_until_reset: { seconds: 0, nanos: 0 } };
    expect(decoded(encodeRateLimitResponse({ overall_code: 0, statuses: [zeros], response_headers_to_add: [], raw_body: Buffer.alloc(0) }))).toEqual({
      ...RESPONSE_DEFAULTS, overall_code: 0, statuses: [{ ...STATUS_DEFAULTS, code: 0, current_limit: { requests_per_unit: 0, unit: 0, name: '' }, duration_until_reset: { seconds: '0', nanos: 0 } }], response_headers_to_add: [],
    });
  });

  it('the largest numbers the fields hold: uint32 limits, int64 seconds past 2^32, nanos just under a second', () => {
    const status = { code: 1, current_limit: { requests_per_unit: 4_294_967_295, unit: 6 }, limit_remaining: 4_294_967_295, duration_until_reset: { seconds: 10_000_000_000, nanos: 999_999_999 } };
    const answer = decoded(encodeRateLimitResponse({ overall_code: 1, statuses: [status], response_headers_to_add: [] })) as { statuses: Record<string, unknown>[] };
    expect(answer.statuses[0]).toMatchObject({ current_limit: { requests_per_unit: 4_294_967_295, unit: 6 }, limit_remaining: 4_294_967_295, duration_until_reset: { seconds: '10000000000', nanos: 999_999_999 } });
  });
});
