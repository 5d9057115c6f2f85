import { RpcError } from '@protobuf-ts/runtime-rpc';
import { describe, expect, it } from 'vitest';
import { decodeGrpcMessage, encodeGrpcMessage, frameMessage, GrpcMessageReader, grpcTimeout, metadataOf, parseGrpcTimeout, statusName, statusOfHttp } from './grpc-wire.js';

const messages = [Buffer.from('first'), Buffer.alloc(0), Buffer.from('x'.repeat(300)), Buffer.from([0, 1, 2, 3, 4, 5])];
const wire = Buffer.concat(messages.map((m) => frameMessage(m)));

function readAll(chunks: Buffer[], maxLength = 1024): { read: string[]; atBoundary: boolean } {
  const reader = new GrpcMessageReader(maxLength);
  const read: string[] = [];
  for (const chunk of chunks) reader.push(chunk, (message) => read.push(message.toString('hex')));
  return { read, atBoundary: reader.atBoundary };
}

describe('GrpcMessageReader', () => {
  it('reassembles the same messages however the DATA chunks split them', () => {
    const expected = messages.map((m) => m.toString('hex'));
    expect(readAll([wire])).toEqual({ read: expected, atBoundary: true });
    for (let size = 1; size <= 7; size += 1) {
      const chunks = [];
      for (let at = 0; at < wire.length; at += size) chunks.push(wire.subarray(at, at + size));
      expect(readAll(chunks)).toEqual({ read: expected, atBoundary: true });
    }
    for (let cut = 1; cut < wire.length; cut += 1) {
      expect(readAll([wire.subarray(0, cut), wire.subarray(cut)]).read).toEqual(expected);
    }
  });

  it('says when the data stopped inside a message', () => {
    expect(readAll([wire.subarray(0, wire.length - 1)]).atBoundary).toBe(false);
    expect(readAll([wire.subarray(0, 3)]).atBoundary).toBe(false);
  });

  it('refuses a message over the limit from its prefix alone, and a compressed one', () => {
    const prefix = Buffer.from([0, 0, 0, 4, 1]);
    const tooLong = (() => { try { readAll([prefix], 1024); } catch (error) { return error; } })();
    expect(tooLong).toBeInstanceOf(RpcError);
    expect((tooLong as RpcError).code).toBe('RESOURCE_EXHAUSTED');
    const compressed = (() => { try { readAll([Buffer.from([1, 0, 0, 0, 0])]); } catch (error) { return error; } })();
    expect((compressed as RpcError).code).toBe('INTERNAL');
  });
});

describe('gRPC wire rules', () => {
  it('names statuses, and anything outside the table is UNKNOWN', () => {
    expect([statusName('0'), statusName('14'), statusName('16'), statusName('17'), statusName('x'), statusName(undefined)])
      .toEqual(['OK', 'UNAVAILABLE', 'UNAUTHENTICATED', 'UNKNOWN', 'UNKNOWN', 'UNKNOWN']);
  });

  it('maps HTTP statuses as gRPC does', () => {
    expect([400, 401, 403, 404, 429, 502, 503, 504, 500].map(statusOfHttp)).toEqual([
      'INTERNAL', 'UNAUTHENTICATED', 'PERMISSION_DENIED', 'UNIMPLEMENTED', 'UNAVAILABLE', 'UNAVAILABLE', 'UNAVAILABLE', 'UNAVAILABLE', 'UNKNOWN',
    ]);
  });

  it('writes grpc-timeout in at most 8 digits, never shorter than asked', () => {
    expect([grpcTimeout(250), grpcTimeout(0.2), grpcTimeout(99_999_999), grpcTimeout(100_000_000), grpcTimeout(1e15)])
      .toEqual(['250m', '1m', '99999999m', '100000S', '99999999H']);
  });

  it('reads grpc-timeout in every unit, and nothing from a malformed one', () => {
    expect(['2H', '3M', '4S', '200m', '1500u', '2000000n', '99999999m'].map(parseGrpcTimeout)).toEqual([7_200_000, 180_000, 4_000, 200, 1.5, 2, 99_999_999]);
    expect(['', '200', 'm', '123456789m', '20x', '-1m', ' 5m'].map(parseGrpcTimeout)).toEqual(Array(7).fill(undefined));
    expect(parseGrpcTimeout(undefined)).toBeUndefined();
  });

  it('percent-decodes grpc-message and keeps a malformed one as sent', () => {
    expect(decodeGrpcMessage('no: 100%25 %C3%BCber')).toBe('no: 100% über');
    expect(decodeGrpcMessage('50%')).toBe('50%');
    expect(decodeGrpcMessage(undefined)).toBe('');
  });

  it('turns trailers into metadata without the status fields, -bin values padded', () => {
    expect(metadataOf({ ':status': 200, 'grpc-status': '9', 'grpc-message': 'x', 'x-a': 'b', 'x-d-bin': 'AQI' } as never))
      .toEqual({ 'x-a': 'b', 'x-d-bin': 'AQI=' });
  });
});

describe('encodeGrpcMessage (PROTOCOL-HTTP2.md percent-encoding)', () => {
  it('passes printable ASCII other than % as is, the empty message included', () => {
    expect(encodeGrpcMessage('')).toBe('');
    expect(encodeGrpcMessage('NOT_FOUND: object 0x2a/v1 {x: y}')).toBe('NOT_FOUND: object 0x2a/v1 {x: y}');
  });

  it('escapes %, control characters and every UTF-8 byte outside printable ASCII', () => {
    expect(encodeGrpcMessage('100% done')).toBe('100%25 done');
    expect(encodeGrpcMessage('line\nbreak\ttab')).toBe('line%0Abreak%09tab');
    expect(encodeGrpcMessage('déjà ✓')).toBe('d%C3%A9j%C3%A0 %E2%9C%93');
    expect(encodeGrpcMessage('\x7f')).toBe('%7F');
  });
});
