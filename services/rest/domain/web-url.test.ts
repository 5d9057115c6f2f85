import { describe, expect, it } from 'vitest';
import { imageUrl, linkUrl } from './web-url.js';

describe('URLs from chain data', () => {
  it.each([
    ['https://img.example/1.png', 'https://img.example/1.png'],
    ['http://img.example', 'http://img.example/'],
    ['ipfs://bafy/1.png', 'https://ipfs.io/ipfs/bafy/1.png'],
    ['data:image/svg+xml;base64,PHN2Zy8+', 'data:image/svg+xml;base64,PHN2Zy8+'],
    ['javascript:alert(document.cookie)', undefined],
    ['JavaScript:alert(1)', undefined],
    ['data:text/html,<script>alert(1)</script>', undefined],
    ['vbscript:msgbox(1)', undefined],
    ['file:///etc/passwd', undefined],
    ['not a url', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('an image %j is %j', (value, expected) => {
    expect(imageUrl(value)).toBe(expected);
  });

  it.each([
    ['https://validator.example', 'https://validator.example/'],
    ['http://validator.example/a?b=c', 'http://validator.example/a?b=c'],
    ['javascript:alert(1)', undefined],
    [' javascript:alert(1)', undefined],
    ['data:image/png;base64,AAAA', undefined],
    ['ipfs://bafy', undefined],
    ['mailto:ops@validator.example', undefined],
  ])('a link %j is %j', (value, expected) => {
    expect(linkUrl(value)).toBe(expected);
  });
});
