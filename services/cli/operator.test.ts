import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operatorOptions, operatorUsage, XDS_DEFAULT_PORT } from './operator.js';

describe('suigw operator flags (what charts/suigw/templates/operator.yaml passes)', () => {
  it('defaults without flags: ADS on 18000, Envoy listener 8080, no trusted hops', () => {
    expect(operatorOptions([])).toEqual({ xdsPort: XDS_DEFAULT_PORT, listenerPort: 8080, trustedProxyHops: 0, servicePrefix: undefined, networks: undefined });
  });

  it('reads the chart\'s flags and its networks.json', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'suigw-operator-')), 'networks.json');
    writeFileSync(file, JSON.stringify({ mainnet: { httpHosts: ['mainnet.api.example.com'], grpcHosts: ['mainnet.grpc.example.com'] } }));
    expect(operatorOptions(['--xds-port', '18001', '--networks', file, '--service-prefix', 'prod-suigw', '--listener-port', '8443', '--trusted-proxy-hops', '1'])).toEqual({
      xdsPort: 18001,
      listenerPort: 8443,
      trustedProxyHops: 1,
      servicePrefix: 'prod-suigw',
      networks: { mainnet: { httpHosts: ['mainnet.api.example.com'], grpcHosts: ['mainnet.grpc.example.com'] } },
    });
  });

  it('refuses a port that is not one, and an unknown flag', () => {
    expect(() => operatorOptions(['--xds-port', '70000'])).toThrow('--xds-port must be an integer 0-65535, not \'70000\'');
    expect(() => operatorOptions(['--bogus'])).toThrow(/Unknown option '--bogus'/);
  });

  it('--help names every flag it accepts', () => {
    const usage = operatorUsage();
    for (const flag of ['--xds-port', '--listener-port', '--trusted-proxy-hops', '--service-prefix', '--networks']) expect(usage).toContain(flag);
    expect(usage.split('\n')[0]).toBe('usage: suigw operator [options]   (in a pod: its service account; elsewhere the kubeconfig)');
  });
});
