import { describe, expect, it } from 'vitest';
import { loadConfig, parseBoolean } from './config.js';

describe('one yes/no reading for settings and flags', () => {
  it('true, 1, yes / false, 0, no; anything else is undefined', () => {
    expect(['true', '1', 'yes', 'false', '0', 'no', 'TRUE', 'on', ''].map(parseBoolean)).toEqual([true, true, true, false, false, false, undefined, undefined, undefined]);
  });

  it('a setting unset or empty takes its default (false, or true for zkLogin); a word outside the list is refused', () => {
    // SUIGW_TRUST_PROXY also takes a number of hops: false is 0.
    expect([loadConfig({}).trustProxy, loadConfig({ SUIGW_TRUST_PROXY: '' }).trustProxy, loadConfig({ SUIGW_TRUST_PROXY: 'yes' }).trustProxy]).toEqual([0, 0, true]);
    expect([loadConfig({}).zklogin.enabled, loadConfig({ SUIGW_ZKLOGIN_ENABLED: '' }).zklogin.enabled, loadConfig({ SUIGW_ZKLOGIN_ENABLED: 'no' }).zklogin.enabled]).toEqual([true, true, false]);
    expect(() => loadConfig({ SUIGW_TRUST_PROXY: 'on' })).toThrow(/SUIGW_TRUST_PROXY/);
  });
});
