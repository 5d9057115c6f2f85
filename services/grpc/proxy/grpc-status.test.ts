import { describe, expect, it } from 'vitest';
import { encodeGrpcMessage } from './grpc-status.js';

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
