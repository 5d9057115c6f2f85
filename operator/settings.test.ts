import { describe, expect, it } from 'vitest';
import { GC_PAUSE_BUCKETS_SECONDS, loadConfig, type ConfigError } from '../services/core/index.js';
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

  it("gives the stream workers and billing Jobs documented resources by default, each with a memory limit", () => {
    const settings = operatorSettings(loadConfig({}));
    expect(settings.streamsResources).toEqual({ requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } });
    expect(settings.billingResources).toEqual({ requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '384Mi' } });
  });

  it('takes their resources as JSON (SUIGW_OPERATOR_STREAMS_RESOURCES, SUIGW_OPERATOR_BILLING_RESOURCES), numbers as quantities', () => {
    const config = loadConfig({
      SUIGW_OPERATOR_STREAMS_RESOURCES: '{"requests": {"cpu": 1, "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1073741824", "ephemeral-storage": "1Gi"}}',
      SUIGW_OPERATOR_BILLING_RESOURCES: '{"limits": {"memory": "512Mi"}}',
    });
    expect(operatorSettings(config).streamsResources).toEqual({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1073741824', 'ephemeral-storage': '1Gi' } });
    expect(operatorSettings(config).billingResources).toEqual({ limits: { memory: '512Mi' } });
  });

  it('refuses resources the API server would refuse: a request one past its limit, a bad quantity, an unknown key, no JSON', () => {
    const refusal = (value: string) => {
      try {
        loadConfig({ SUIGW_OPERATOR_STREAMS_RESOURCES: value });
        return 'accepted';
      } catch (error) {
        return (error as ConfigError).issues;
      }
    };
    // At the limit (1Gi = 1073741824 bytes, 1 = 1000m) is allowed, one past it is not.
    expect(refusal('{"requests": {"memory": "1073741824", "cpu": "1000m"}, "limits": {"memory": "1Gi", "cpu": "1"}}')).toBe('accepted');
    expect(refusal('{"requests": {"memory": "1073741825"}, "limits": {"memory": "1Gi"}}')).toEqual(['SUIGW_OPERATOR_STREAMS_RESOURCES: requests.memory (1073741825) is above limits.memory (1Gi)']);
    expect(refusal('{"requests": {"cpu": "1001m"}, "limits": {"cpu": "1"}}')).toEqual(['SUIGW_OPERATOR_STREAMS_RESOURCES: requests.cpu (1001m) is above limits.cpu (1)']);
    expect(refusal('{"limits": {"memory": "1GB"}}')).toEqual(['SUIGW_OPERATOR_STREAMS_RESOURCES: limits.memory: expected a Kubernetes quantity (250m, 256Mi, 1Gi, 2)']);
    expect(refusal('{"limit": {"memory": "1Gi"}}')).toEqual(['SUIGW_OPERATOR_STREAMS_RESOURCES: Unrecognized key: "limit"']);
    expect(refusal('memory=1Gi')).toEqual(['SUIGW_OPERATOR_STREAMS_RESOURCES: expected JSON: {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"memory": "1Gi"}}']);
  });

  it('refuses a namespace that is not a Kubernetes name, and a zero worker size', () => {
    expect(() => loadConfig({ SUIGW_OPERATOR_NAMESPACE: 'Not_OK' })).toThrow(/SUIGW_OPERATOR_NAMESPACE/);
    expect(() => loadConfig({ SUIGW_OPERATOR_EVENTS_PER_WORKER: '0' })).toThrow(/SUIGW_OPERATOR_EVENTS_PER_WORKER/);
  });

  it("names the ConfigMap of its workloads' environment when SUIGW_OPERATOR_ENV_CONFIGMAP does, none when unset, and refuses a name Kubernetes would", () => {
    expect(operatorSettings(loadConfig({ SUIGW_OPERATOR_ENV_CONFIGMAP: 'suigw-environment' })).envConfigMap).toBe('suigw-environment');
    expect('envConfigMap' in operatorSettings(loadConfig({}))).toBe(false);
    expect(() => loadConfig({ SUIGW_OPERATOR_ENV_CONFIGMAP: 'Not_OK' })).toThrow(/SUIGW_OPERATOR_ENV_CONFIGMAP/);
  });
});
