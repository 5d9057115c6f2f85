import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../core/index.js';

describe('webhook settings', () => {
  it('default to HTTPS only, no non-public address, 10 s per attempt', () => {
    expect(loadConfig({}).webhooks).toEqual({ allowHttp: false, allowedAddresses: [], timeoutMs: 10_000 });
  });

  it('take IPs and CIDRs of both families, and refuse anything else', () => {
    const config = loadConfig({ SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '10.20.0.0/16, 127.0.0.1,::1,fd00::/8', SUIGW_WEBHOOK_TIMEOUT_MS: '2500' });
    expect(config.webhooks).toEqual({ allowHttp: true, allowedAddresses: ['10.20.0.0/16', '127.0.0.1', '::1', 'fd00::/8'], timeoutMs: 2_500 });
    for (const value of ['localhost', '10.0.0.0/33', '*']) {
      expect(() => loadConfig({ SUIGW_WEBHOOK_ALLOWED_ADDRESSES: value }), value).toThrow(ConfigError);
    }
    expect(() => loadConfig({ SUIGW_WEBHOOK_TIMEOUT_MS: '50' })).toThrow(ConfigError);
  });
});
