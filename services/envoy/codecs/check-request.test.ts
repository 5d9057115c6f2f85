import { BinaryReader, BinaryWriter, WireType } from '@protobuf-ts/runtime';
import { describe, expect, it } from 'vitest';
import { authorizationService } from '../../../test/support/envoy-protos.js';
import { MalformedMessage } from '../unary-grpc-server.js';
import { decodeCheckRequest } from './check-request.js';

/** protobufjs (Envoy's protos through proto-loader): the reference our decoder is held against. */
const Check = authorizationService().service['Check']!;
const encode = (message: unknown) => Check.requestSerialize(message);
const reference = (bytes: Buffer) => (Check.requestDeserialize(bytes) as { attributes: { request: { http: Record<string, unknown> } } }).attributes.request.http;

const HEADERS = {
  ':authority': 'api.example.com', ':method': 'POST', ':path': '/mainnet/v1/graphql?x=1', ':scheme': 'https', accept: '*/*',
  'content-type': 'application/json', 'user-agent': 'ua/1', 'x-api-key': 'svc_pat_abc', 'x-request-id': 'rid-1', origin: 'https://app.example', 'x-note': 'déjà ✓',
};

/** A Check as Envoy sends it: peers, time, context extensions, metadata and every HttpRequest field. */
const FULL = {
  attributes: {
    source: { address: { socket_address: { address: '203.0.113.7', port_value: 51_234 } }, principal: 'spiffe://x' },
    destination: { address: { socket_address: { address: '10.0.3.17', port_value: 8080 } } },
    request: {
      time: { seconds: '1795348800', nanos: 5 },
      http: {
        id: '1437', method: 'POST', headers: HEADERS, path: '/mainnet/v1/graphql?x=1', host: 'api.example.com', scheme: 'https', query: '', fragment: '',
        size: '-1', protocol: 'HTTP/2', body: '{"query":"{a}"}', raw_body: Buffer.from([0, 1, 2]),
      },
    },
    context_extensions: { tenant: 'a' },
    metadata_context: { filter_metadata: { envoy: { fields: { k: { string_value: 'v' } } } } },
    tls_session: { sni: 'api.example.com' },
  },
};

/** Unknown fields of every wire type, as a newer Envoy might add at any level. */
const UNKNOWN = Buffer.from(new BinaryWriter()
  .tag(99, WireType.Varint).uint64('18446744073709551615')
  .tag(98, WireType.Bit64).fixed64(7)
  .tag(97, WireType.Bit32).fixed32(7)
  .tag(96, WireType.StartGroup).tag(1, WireType.LengthDelimited).string('in a group').tag(96, WireType.EndGroup)
  .tag(95, WireType.LengthDelimited).bytes(new Uint8Array([0x0a, 0x01, 0x41]))
  .finish());

/** The bytes of the embedded message at `field` (first occurrence). */
function embedded(bytes: Uint8Array, field: number): Buffer {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [number, wireType] = reader.tag();
    if (number === field && wireType === WireType.LengthDelimited) return Buffer.from(reader.bytes());
    reader.skip(wireType);
  }
  throw new Error(`no field ${field}`);
}

/** `inner` as field `field` of a message that also holds `around` (other fields' bytes). */
function wrap(field: number, inner: Uint8Array, around: Uint8Array = new Uint8Array()): Buffer {
  return Buffer.concat([around, new BinaryWriter().tag(field, WireType.LengthDelimited).bytes(inner).finish()]);
}

const plain = (http: { headers: object } | undefined) => (http ? { ...http, headers: { ...http.headers } } : http);

describe('decodeCheckRequest, held against protobufjs on Envoy\'s protos', () => {
  it('reads id, method, path, host and every header of a full Check, skipping the rest', () => {
    const bytes = encode(FULL);
    const ours = plain(decodeCheckRequest(bytes));
    const theirs = reference(bytes);
    expect(ours).toEqual({ id: theirs['id'], method: theirs['method'], path: theirs['path'], host: theirs['host'], headers: theirs['headers'], sourceIp: '203.0.113.7' });
    expect(ours!.headers).toEqual(HEADERS);
  });

  it('keeps only the headers asked for, whichever form they come in', () => {
    const wanted = new Set(['x-api-key', 'origin', 'authorization']);
    expect(plain(decodeCheckRequest(encode(FULL), wanted))!.headers).toEqual({ 'x-api-key': 'svc_pat_abc', origin: 'https://app.example' });
    const raw = encode({ attributes: { request: { http: { header_map: { headers: [{ key: 'x-api-key', raw_value: Buffer.from('k') }, { key: 'accept', raw_value: Buffer.from('*/*') }] } } } } });
    expect(plain(decodeCheckRequest(raw, wanted))!.headers).toEqual({ 'x-api-key': 'k' });
  });

  it('header_map (encode_raw_headers): raw_value bytes one character per byte, repeated names joined with ","', () => {
    const header_map = {
      headers: [
        { key: ':path', raw_value: Buffer.from('/mainnet/v1/objects/0x1') },
        { key: 'x-api-key', raw_value: Buffer.from('svc_pat_raw') },
        { key: 'accept', raw_value: Buffer.from('text/plain') },
        { key: 'accept', raw_value: Buffer.from('application/json') },
        // Not UTF-8: Latin-1 é, as Node's HTTP server would read the same header.
        { key: 'x-latin', raw_value: Buffer.from([0x63, 0x61, 0x66, 0xe9]) },
        { key: 'x-string', value: 'plain value' },
        { key: 'x-empty' },
      ],
    };
    const bytes = encode({ attributes: { request: { http: { method: 'GET', path: '/mainnet/v1/objects/0x1', header_map } } } });
    const theirs = reference(bytes) as { header_map: { headers: { key: string; raw_value: Buffer; value: string }[] } };
    expect(theirs.header_map.headers.map((h) => h.key)).toEqual(header_map.headers.map((h) => h.key));
    expect(plain(decodeCheckRequest(bytes))).toEqual({
      method: 'GET',
      path: '/mainnet/v1/objects/0x1',
      headers: {
        ':path': '/mainnet/v1/objects/0x1', 'x-api-key': 'svc_pat_raw', accept: 'text/plain,application/json', 'x-latin': 'café', 'x-string': 'plain value', 'x-empty': '',
      },
    });
  });

  it('the source peer\'s socket address is the client IP; a pipe, an internal address or no source gives none', () => {
    const http = { method: 'GET', path: '/mainnet/v1/health' };
    const sourced = (source: object) => decodeCheckRequest(encode({ attributes: { source, request: { http } } }))!.sourceIp;
    expect(sourced({ address: { socket_address: { address: '2001:db8::7', port_value: 443 } } })).toBe('2001:db8::7');
    expect(sourced({ address: { pipe: { path: '/run/envoy.sock' } } })).toBeUndefined();
    expect(sourced({ principal: 'p' })).toBeUndefined();
    // Sent after the request, as protobuf allows: read all the same.
    const request = wrap(4, wrap(2, new BinaryWriter().tag(2, WireType.LengthDelimited).string('GET').finish()));
    const source = embedded(embedded(encode(FULL), 1), 1);
    expect(decodeCheckRequest(wrap(1, Buffer.concat([request, wrap(1, source)])))!.sourceIp).toBe('203.0.113.7');
  });

  it('unknown fields of every wire type at every level change nothing', () => {
    const bytes = encode(FULL);
    const http = embedded(embedded(embedded(bytes, 1), 4), 2);
    const withUnknown = wrap(1, wrap(4, wrap(2, Buffer.concat([UNKNOWN, http, UNKNOWN]), UNKNOWN), UNKNOWN), UNKNOWN);
    expect(plain(decodeCheckRequest(Buffer.concat([withUnknown, UNKNOWN])))).toEqual({ ...plain(decodeCheckRequest(bytes)), sourceIp: undefined });
    // A map entry with an unknown field, and its value before its key.
    const entry = new BinaryWriter().tag(7, WireType.Varint).int32(1).tag(2, WireType.LengthDelimited).string('v').tag(1, WireType.LengthDelimited).string('x-api-key').finish();
    expect(plain(decodeCheckRequest(wrap(1, wrap(4, wrap(2, wrap(3, entry)))), new Set(['x-api-key'])))!.headers).toEqual({ 'x-api-key': 'v' });
  });

  it('a known field number with another wire type is skipped, never misread', () => {
    const http = new BinaryWriter().tag(4, WireType.Varint).int32(5).tag(2, WireType.Bit32).fixed32(1).tag(5, WireType.LengthDelimited).string('h').finish();
    expect(plain(decodeCheckRequest(wrap(1, wrap(4, wrap(2, http)))))).toEqual({ host: 'h', headers: {} });
    // attributes as a varint: no attributes at all.
    expect(decodeCheckRequest(Buffer.from(new BinaryWriter().tag(1, WireType.Varint).int32(1).finish()))).toBeUndefined();
  });

  it('empty and partial messages: no HTTP request is undefined; an empty one has nothing set', () => {
    expect(decodeCheckRequest(Buffer.alloc(0))).toBeUndefined();
    expect(decodeCheckRequest(encode({}))).toBeUndefined();
    expect(decodeCheckRequest(encode({ attributes: { source: { principal: 'p' } } }))).toBeUndefined();
    expect(decodeCheckRequest(encode({ attributes: { request: { time: { seconds: '1' } } } }))).toBeUndefined();
    const empty = decodeCheckRequest(encode({ attributes: { request: { http: {} } } }));
    expect(plain(empty)).toEqual({ headers: {} });
    expect([empty!.path, empty!.method, empty!.host, empty!.id]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('headers live in an object without a prototype: a header named like an Object property is just a header', () => {
    const http = decodeCheckRequest(encode({ attributes: { request: { http: { headers: { constructor: 'c', ['__proto__']: 'p', toString: 't' } } } } }));
    expect(Object.getPrototypeOf(http!.headers)).toBeNull();
    expect(Object.entries(http!.headers)).toEqual([['constructor', 'c'], ['__proto__', 'p'], ['toString', 't']]);
    const map = decodeCheckRequest(encode({ attributes: { request: { http: { header_map: { headers: [{ key: 'constructor', raw_value: Buffer.from('x') }] } } } } }));
    expect(map!.headers).toEqual(Object.assign(Object.create(null) as object, { constructor: 'x' }));
  });

  it('protobuf\'s merge rule: an HTTP request sent in two parts is read as one (the last value of a field wins)', () => {
    const first = embedded(embedded(embedded(encode({ attributes: { request: { http: { method: 'GET', path: '/a', headers: { a: '1', b: '2' } } } } }), 1), 4), 2);
    const second = embedded(embedded(embedded(encode({ attributes: { request: { http: { path: '/b', headers: { b: '3' } } } } }), 1), 4), 2);
    const bytes = Buffer.concat([wrap(1, wrap(4, wrap(2, first))), wrap(1, wrap(4, wrap(2, second)))]);
    expect(plain(decodeCheckRequest(bytes))).toEqual({ method: 'GET', path: '/b', headers: { a: '1', b: '3' } });
  });

  it('anything that is not well-formed protobuf is a MalformedMessage, never another error; every cut of a Check included', () => {
    for (const bytes of [[0x0a, 0x05, 0x01], [0x7f], [0x00], [0x0a, 0x80], [0x08, ...Array(10).fill(0xff), 0x01], [0x0b]]) {
      expect(() => decodeCheckRequest(Buffer.from(bytes))).toThrow(MalformedMessage);
    }
    expect(() => decodeCheckRequest(Buffer.from([0x0a, 0x05, 0x01]))).toThrow('The CheckRequest does not decode: premature end of message');
    const bytes = encode(FULL);
    for (let cut = 0; cut < bytes.length; cut += 1) {
      try {
        decodeCheckRequest(bytes.subarray(0, cut));
      } catch (error) {
        expect(error).toBeInstanceOf(MalformedMessage);
      }
    }
  });
});
