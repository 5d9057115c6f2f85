import { describe, expect, it } from 'vitest';
import { redactUrlCredentials } from './url-credentials.js';

describe('redactUrlCredentials', () => {
  it('replaces the user name and password of every URL in a text', () => {
    expect(redactUrlCredentials('connect https://user:p%40ss@rpc.example:443/graphql then grpcs://token@node.example', '[redacted]'))
      .toBe('connect https://[redacted]@rpc.example:443/graphql then grpcs://[redacted]@node.example');
  });

  it('hides a password holding an unencoded @ whole', () => {
    expect(redactUrlCredentials('https://u:p@ss@rpc.example/graphql', '[redacted]')).toBe('https://[redacted]@rpc.example/graphql');
  });

  it('leaves an @ after the host (path, query, fragment) and text without URLs as they are', () => {
    for (const text of ['https://rpc.example/a@b', 'https://rpc.example?to=a@b', 'https://rpc.example#a@b', 'mail ops@example.com', 'no url']) {
      expect(redactUrlCredentials(text, '[redacted]')).toBe(text);
    }
  });
});
