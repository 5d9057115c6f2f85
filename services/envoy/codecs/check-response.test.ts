import { describe, expect, it } from 'vitest';
import { authorizationService } from '../../../test/support/envoy-protos.js';
import type { CheckResponse } from '../envoy-types.js';
import { encodeCheckResponse } from './check-response.js';

/** protobufjs (Envoy's protos through proto-loader): the reference our encoder is held against. */
const Check = authorizationService().service['Check']!;

/** Our frame's message, read by protobufjs; the frame's prefix checked on the way. */
function decoded(frame: Buffer): unknown {
  expect([frame[0], frame.readUInt32BE(1)]).toEqual([0, frame.length - 5]);
  return Check.responseDeserialize(frame.subarray(5));
}

const option = (key: string, value: string, append_action = 2) => ({ header: { key, value }, append_action });
/** What a proto-loader client fills in for fields a message leaves out (defaults: true, oneofs: true). */
const OK_DEFAULTS = { headers: [], headers_to_remove: [], response_headers_to_add: [], query_parameters_to_set: [], query_parameters_to_remove: [], dynamic_metadata: null };
const OPTION_DEFAULTS = { append: null, keep_empty_value: false };
const HEADER_DEFAULTS = { raw_value: Buffer.alloc(0) };

describe('encodeCheckResponse, read back by protobufjs on Envoy\'s protos', () => {
  it('an allow with identity headers to set: every header, its value and append action', () => {
    const headers = [option('x-suigw-identity', `${'a'.repeat(300)}.${'b'.repeat(43)}`), option('x-suigw-scopes', 'data,streams'), option('x-suigw-note', 'déjà ✓', 0)];
    const response: CheckResponse = { status: { code: 0 }, ok_response: { headers, headers_to_remove: [] } };
    expect(decoded(encodeCheckResponse(response))).toEqual({
      status: { code: 0, message: '', details: [] },
      ok_response: { ...OK_DEFAULTS, headers: headers.map((h) => ({ ...OPTION_DEFAULTS, ...h, header: { ...HEADER_DEFAULTS, ...h.header } })) },
      dynamic_metadata: null,
      http_response: 'ok_response',
    });
  });

  it('an allow with nothing but headers to remove, an empty name included; an allow with nothing at all is still an ok_response', () => {
    const remove = ['x-suigw-identity', '', 'x-suigw-plan'];
    expect(decoded(encodeCheckResponse({ status: { code: 0 }, ok_response: { headers: [], headers_to_remove: remove } }))).toMatchObject({
      status: { code: 0 }, ok_response: { ...OK_DEFAULTS, headers_to_remove: remove }, http_response: 'ok_response',
    });
    expect(decoded(encodeCheckResponse({ status: { code: 0 }, ok_response: { headers: [], headers_to_remove: [] } }))).toMatchObject({ ok_response: OK_DEFAULTS, http_response: 'ok_response' });
  });

  it('a denial: status and message, the HTTP status, headers and a UTF-8 body; the same bytes protobufjs writes', () => {
    const response: CheckResponse = {
      status: { code: 7, message: 'INSUFFICIENT_SCOPE' },
      denied_response: {
        status: { code: 403 },
        headers: [option('content-type', 'application/json; charset=utf-8'), option('x-request-id', 'r-1'), option('grpc-message', 'needs%20%E2%9C%93')],
        body: JSON.stringify({ error: 'Forbidden — scope ✓', requestId: 'r-1' }),
      },
    };
    const frame = encodeCheckResponse(response);
    expect(decoded(frame)).toEqual({
      status: { code: 7, message: 'INSUFFICIENT_SCOPE', details: [] },
      denied_response: {
        status: { code: 403 },
        headers: response.denied_response!.headers.map((h) => ({ ...OPTION_DEFAULTS, ...h, header: { ...HEADER_DEFAULTS, ...h.header } })),
        body: response.denied_response!.body,
      },
      dynamic_metadata: null,
      http_response: 'denied_response',
    });
    // No zero-valued field in it, so protobufjs (which writes zeros) writes exactly these bytes.
    expect(frame.subarray(5)).toEqual(Check.responseSerialize(response));
  });

  it('the smallest answers: a status alone is still a status (code 0, empty message); no http_response', () => {
    expect([...encodeCheckResponse({ status: { code: 0 } })]).toEqual([0, 0, 0, 0, 2, 0x0a, 0]);
    expect(decoded(encodeCheckResponse({ status: { code: 0 } }))).toEqual({ status: { code: 0, message: '', details: [] }, dynamic_metadata: null });
    expect(decoded(encodeCheckResponse({ status: { code: 16, message: '' } }))).toMatchObject({ status: { code: 16, message: '' } });
  });

  it('a header value long enough for a two- and a three-byte length', () => {
    for (const length of [127, 128, 16_383, 16_384, 70_000]) {
      const value = 'v'.repeat(length);
      const answer = decoded(encodeCheckResponse({ status: { code: 0 }, ok_response: { headers: [option('x-long', value)], headers_to_remove: [] } })) as { ok_response: { headers: { header: { value: string } }[] } };
      expect(answer.ok_response.headers[0]!.header.value).toBe(value);
    }
  });
});
