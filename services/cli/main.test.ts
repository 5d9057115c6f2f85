import { AsyncResource } from 'node:async_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from './index.js';

describe('suigw main', () => {
  afterEach(() => vi.restoreAllMocks());

  // Each test file runs in a process of its own (vitest forks pool): nothing else installed it here.
  it('installs the lean AsyncResource.bind before any role runs (Node 20: ~9 µs per HTTP/2 request otherwise)', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await main(['--help']);
    const after = new AsyncResource('test').bind(() => undefined);
    expect(Object.getOwnPropertyDescriptor(after, 'asyncResource')).toBeUndefined();
  });
});
