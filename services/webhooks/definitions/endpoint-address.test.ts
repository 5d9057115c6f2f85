import { describe, expect, it } from 'vitest';
import { canonicalHost, isAddressAllowed, isHostAllowed } from './endpoint-address.js';

/** Every spelling of one address reaches the same decision, when a URL is set and at connection time. */
describe('canonicalHost', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['10.0x10.1', '10.16.0.1'],
    ['169.254.43518', '169.254.169.254'],
    ['127.0.0.1.', '127.0.0.1'],
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['[::127.0.0.1]', '127.0.0.1'],
    ['::a9fe:a9fe', '169.254.169.254'],
    ['[::1]', '::1'],
    ['::', '::'],
    ['[2001:DB8:0:0::1]', '2001:db8::1'],
  ])('%s is the address %s', (host, address) => {
    expect(canonicalHost(host)).toEqual({ kind: 'ip', address });
  });

  it.each([
    ['LOCALHOST.', 'localhost'],
    ['hooks.example.com.', 'hooks.example.com'],
    ['08.0.0.1', '08.0.0.1'],
    ['1.2.3.4.5', '1.2.3.4.5'],
    ['256.1.1.1', '256.1.1.1'],
    ['4294967296', '4294967296'],
  ])('%s is the name %s', (host, name) => {
    expect(canonicalHost(host)).toEqual({ kind: 'name', name });
  });
});

describe('isHostAllowed / isAddressAllowed', () => {
  it.each(['localhost', 'localhost.', 'api.localhost.', '2130706433', '0x7f.1', '[::127.0.0.1]', '[::ffff:10.0.0.1]', '::a9fe:a9fe', '0.0.0.0', '::', '::1'])(
    'refuses %s', (host) => {
      expect(isHostAllowed(host, [])).toBe(false);
    },
  );

  it('allows public addresses and names (a name is checked on what it resolves to)', () => {
    expect(isHostAllowed('8.8.8.8', [])).toBe(true);
    expect(isHostAllowed('[::ffff:8.8.8.8]', [])).toBe(true);
    expect(isHostAllowed('hooks.example.com.', [])).toBe(true);
  });

  it('the allowed list matches every spelling of a listed address, and nothing else', () => {
    expect(isAddressAllowed('::ffff:127.0.0.1', ['127.0.0.0/8'])).toBe(true);
    expect(isHostAllowed('localhost.', ['127.0.0.1'])).toBe(true);
    expect(isAddressAllowed('0x7f.1', ['127.0.0.1'])).toBe(true);
    expect(isAddressAllowed('127.0.0.2', ['127.0.0.1'])).toBe(false);
    expect(isAddressAllowed('hooks.example.com', ['0.0.0.0/0'])).toBe(false);
  });
});
