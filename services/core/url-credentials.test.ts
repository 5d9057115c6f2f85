import { describe, expect, it } from 'vitest';
import { redactUrlCredentials } from './url-credentials.js';

describe('redactUrlCredentials', () => {
  it('replaces the user name and password of every URL in a text', () => {
    expect(redactUrlCredentials('connect https://user:p%40ss@rpc.example:443/graphql then grpcs://token@node.example', '[redacted]'))
      .toBe('connect https://[redacted]@rpc.example:443/graphql then grpcs://[redacted]@node.example');
  });

  it('leaves an @ after the host (path, query, fragment) and text without URLs as they are', () => {
    for (const text of ['https://rpc.example/a@b', 'https://rpc.example?to=a@b', 'https://rpc.example#a@b', 'mail ops@example.com', 'no url']) {
      expect(redactUrlCredentials(text, '[redacted]')).toBe(text);
    }
  });
});
