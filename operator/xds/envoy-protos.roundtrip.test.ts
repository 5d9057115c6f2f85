import { describe, expect, it } from 'vitest';
import { decodeResource, encodeResource, lossesOf, roundTripLosses } from './envoy-codec.js';
import { goldenCases, readCase } from '../../test/support/xds-golden-cases.js';
import { translateToEnvoy } from './translate-envoy.js';
import { TYPE_URL, type ResourceKind } from './type-urls.js';

const LISTS = { listener: 'listeners', route: 'routes', cluster: 'clusters', endpoint: 'endpoints' } as const;

describe("every generated resource survives Envoy's own protos", () => {
  for (const name of goldenCases()) {
    const snapshot = translateToEnvoy(readCase(name));
    for (const kind of Object.keys(LISTS) as ResourceKind[]) {
      it(`${name}: every ${kind} encodes and decodes without loss or unknown fields`, () => {
        const resources = snapshot[LISTS[kind]];
        expect(resources.length).toBeGreaterThan(0);
        for (const resource of resources) expect(roundTripLosses(TYPE_URL[kind], resource)).toEqual([]);
      });
    }
  }

  it('reports a field the proto does not have (protobufjs alone would drop it silently)', () => {
    const [listener] = translateToEnvoy(readCase('two-networks')).listeners;
    const misspelt = { ...listener, per_connection_buffer_limit: { value: 1024 } };
    expect(roundTripLosses(TYPE_URL.listener, misspelt)).toEqual(['$.per_connection_buffer_limit']);
  });

  it('reports a field inside a packed Any config', () => {
    const cluster = {
      name: 'c',
      type: 'EDS',
      typed_extension_protocol_options: {
        'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
          '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
          explicit_http_config: { http2_protocol_options: {} },
          http2: true,
        },
      },
    };
    expect(roundTripLosses(TYPE_URL.cluster, cluster)).toEqual([
      '$.typed_extension_protocol_options.envoy.extensions.upstreams.http.v3.HttpProtocolOptions.http2',
    ]);
  });

  it('reports a changed value and tolerates only proto3 defaults the wire cannot carry', () => {
    expect(lossesOf({ a: 1, b: false, c: [], d: { seconds: 0, nanos: 0 } }, { a: 2 })).toEqual(['$.a (1 → 2)']);
  });

  it('carries the filter configs packed in Any with their type URLs', () => {
    const [, publicListener] = translateToEnvoy(readCase('two-networks')).listeners;
    const decoded = decodeResource(TYPE_URL.listener, encodeResource(TYPE_URL.listener, publicListener!)) as {
      filter_chains: { filters: { typed_config: { '@type': string; http_filters: { typed_config: { '@type': string } }[] } }[] }[];
    };
    const manager = decoded.filter_chains[0]!.filters[0]!.typed_config;
    expect(manager['@type']).toBe('type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager');
    expect(manager.http_filters.map((filter) => filter.typed_config['@type'])).toEqual([
      'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz',
      'type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit',
      'type.googleapis.com/envoy.extensions.filters.http.grpc_web.v3.GrpcWeb',
      'type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors',
      'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
    ]);
  });
});
