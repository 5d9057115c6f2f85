import { describe, expect, it } from 'vitest';
import { TextBodyDecoder } from './grpc-web-framing.js';

describe('gRPC-Web framing: a -text body decoded as it arrives', () => {
  it('two padded base64 chunks of the client, cut anywhere by the network, decode to their bytes', () => {
    const first = Buffer.from([0, 0, 0, 0, 1, 0xfa]);
    const second = Buffer.from([0, 0, 0, 0, 2, 0xfb, 0xfc]);
    // "AAAAAAH6" + "AAAAAAL7/A==" : the second chunk is padded; a first of 5 bytes would be too.
    const sent = Buffer.from(`${Buffer.from(first.subarray(0, 5)).toString('base64')}${Buffer.from(first.subarray(5)).toString('base64')}\r\n${second.toString('base64')}`, 'ascii');
    for (let cut = 0; cut <= sent.length; cut++) {
      const decoder = new TextBodyDecoder();
      const decoded = Buffer.concat([decoder.push(sent.subarray(0, cut)), decoder.push(sent.subarray(cut)), decoder.end()]);
      expect(decoded).toEqual(Buffer.concat([first, second]));
    }
  });

  it('an unpadded last quantum is decoded as far as it goes', () => {
    const decoder = new TextBodyDecoder();
    expect(Buffer.concat([decoder.push(Buffer.from('AAAAAAH6AQ', 'ascii')), decoder.end()])).toEqual(Buffer.from([0, 0, 0, 0, 1, 0xfa, 1]));
  });
});
