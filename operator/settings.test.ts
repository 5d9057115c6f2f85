import { describe, expect, it } from 'vitest';
import { GC_PAUSE_BUCKETS_SECONDS, loadConfig } from '../services/core/index.js';
import { BACKEND_PORTS, operatorSettings } from './settings.js';

describe('operator settings from the one config', () => {
  it('defaults as shipped: namespace suigw, 500 events per worker, at most 10 workers, role Services', () => {
    const settings = operatorSettings(loadConfig({ SUIGW_NETWORKS: 'mainnet,testnet', SUIGW_MAINNET_HOST: 'mainnet.api.example.com' }));
    expect(settings).toMatchObject({ namespace: 'suigw', eventsPerWorker: 500, maxStreamWorkers: 10, image: 'ghcr.io/suigw/suigw:0.1.0' });
    expect(settings.hosts).toEqual([
      { network: 'mainnet', http: ['mainnet.api.example.com'], grpc: ['mainnet.api.example.com'] },
      { network: 'testnet', http: [], grpc: [] },
    ]);
    expect(settings.backends.authz).toEqual({ name: 'suigw-authz', protocol: 'http2', endpoints: [{ address: 'suigw-authz.suigw.svc', port: 9001 }], timeoutMs: 200 });
  });

  it('takes the Services\' prefix and the hosts per network from the chart (--service-prefix, --networks)', () => {
    const settings = operatorSettings(loadConfig({ SUIGW_NETWORKS: 'mainnet,testnet', SUIGW_TESTNET_GRPC_HOST: 'grpc.testnet.example.com' }), {
      servicePrefix: 'prod-suigw',
      networks: { mainnet: { httpHosts: ['api.example.com'], grpcHosts: ['grpc.example.com'] } },
    });
    expect(settings.hosts).toEqual([
      { network: 'mainnet', http: ['api.example.com'], grpc: ['grpc.example.com'] },
      { network: 'testnet', http: [], grpc: ['grpc.testnet.example.com'] },
    ]);
    expect(settings.backends.ratelimit.endpoints).toEqual([{ address: 'prod-suigw-ratelimit.suigw.svc', port: 9002 }]);
    expect(settings.backends.grpc.endpoints).toEqual([{ address: 'prod-suigw-grpc.suigw.svc', port: 9090 }]);
  });

  it('gives Envoy\'s calls to authz and ratelimit timeouts that the roles\' GC pause histogram has a bucket for', () => {
    // /metrics then counts the pauses that outlast each call (docs/operations.md).
    for (const role of ['authz', 'ratelimit'] as const) {
      expect(GC_PAUSE_BUCKETS_SECONDS, role).toContain(BACKEND_PORTS[role].timeoutMs / 1000);
    }
  });

  it('refuses a namespace that is not a Kubernetes name, and a zero worker size', () => {
    expect(() => loadConfig({ SUIGW_OPERATOR_NAMESPACE: 'Not_OK' })).toThrow(/SUIGW_OPERATOR_NAMESPACE/);
    expect(() => loadConfig({ SUIGW_OPERATOR_EVENTS_PER_WORKER: '0' })).toThrow(/SUIGW_OPERATOR_EVENTS_PER_WORKER/);
  });
});
