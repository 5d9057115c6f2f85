import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../services/core/index.js';
import { readCase } from '../../test/support/xds-golden-cases.js';
import { AdsServer } from './ads-server.js';
import type { DiscoveryRequest, DiscoveryResponse } from './ads-stream.js';
import { decodeResource } from './envoy-codec.js';
import { PROTO_INCLUDE_DIRS } from './envoy-protos.js';
import { TYPE_URL } from './type-urls.js';

/**
 * Envoy's way of subscribing (wildcard listeners and clusters on one ADS stream), spoken by a
 * plain grpc-js client over the wire, since no Envoy binary runs here.
 */
type AdsStream = grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;

function adsClient(port: number): { stream: AdsStream; next: () => Promise<DiscoveryResponse>; close: () => void } {
  const definition = protoLoader.loadSync('envoy/service/discovery/v3/ads.proto', { keepCase: true, defaults: false, includeDirs: [...PROTO_INCLUDE_DIRS] });
  const Service = grpc.makeClientConstructor(
    definition['envoy.service.discovery.v3.AggregatedDiscoveryService'] as grpc.ServiceDefinition,
    'AggregatedDiscoveryService',
  );
  const client = new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    StreamAggregatedResources(): AdsStream;
  };
  const stream = client.StreamAggregatedResources();
  const queue: DiscoveryResponse[] = [];
  const waiting: ((response: DiscoveryResponse) => void)[] = [];
  stream.on('data', (response: DiscoveryResponse) => (waiting.length > 0 ? waiting.shift()!(response) : queue.push(response)));
  stream.on('error', () => undefined);
  const next = () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise<DiscoveryResponse>((resolve) => waiting.push(resolve)));
  return { stream, next, close: () => (stream.cancel(), client.close()) };
}

const names = (response: DiscoveryResponse) =>
  response.resources.map((resource) => {
    const decoded = decodeResource(resource.type_url, resource.value);
    return String(decoded.name ?? decoded.cluster_name);
  });

describe('ADS over the wire, subscribed the way Envoy subscribes', () => {
  let ads: AdsServer;
  let port: number;

  beforeAll(async () => {
    ads = new AdsServer({ logger: createLogger('silent'), registry: new Registry() });
    port = await ads.listen(0, '127.0.0.1');
  });
  afterAll(() => ads.close());

  it('answers a wildcard subscription made before the first snapshot once one is published, then pushes each new version', async () => {
    const client = adsClient(port);
    try {
      client.stream.write({ node: { id: 'envoy-0' }, type_url: TYPE_URL.cluster });
      client.stream.write({ type_url: TYPE_URL.listener, resource_names: ['*'] });
      ads.publish(readCase('two-networks'));
      const responses = [await client.next(), await client.next()];
      const clusters = responses.find((response) => response.type_url === TYPE_URL.cluster)!;
      const listeners = responses.find((response) => response.type_url === TYPE_URL.listener)!;
      expect(clusters.version_info).toBe('3f2a9c0d1e7b4a55');
      expect(names(clusters)).toEqual(['suigw-authz', 'suigw-gateway', 'suigw-grpc', 'suigw-ratelimit', 'suigw-streams']);
      expect(names(listeners)).toEqual(['mainnet.grpc.example.com', 'suigw-public', 'testnet.grpc.example.com']);

      client.stream.write({ type_url: TYPE_URL.cluster, version_info: clusters.version_info, response_nonce: clusters.nonce });
      client.stream.write({ type_url: TYPE_URL.listener, resource_names: ['*'], version_info: listeners.version_info, response_nonce: listeners.nonce });
      client.stream.write({ type_url: TYPE_URL.route, resource_names: ['suigw-public'] });
      const routes = await client.next();
      expect([routes.type_url, names(routes)]).toEqual([TYPE_URL.route, ['suigw-public']]);
      client.stream.write({ type_url: TYPE_URL.route, resource_names: ['suigw-public'], version_info: routes.version_info, response_nonce: routes.nonce });

      // A new IR without testnet: every subscribed type is pushed, complete, at the new version.
      const next = readCase('two-networks');
      ads.publish({ ...next, version: 'b2', networks: next.networks.filter((network) => network.network === 'mainnet') });
      const pushed = [await client.next(), await client.next(), await client.next()];
      expect(pushed.map((response) => [response.type_url, response.version_info]).sort()).toEqual(
        [TYPE_URL.cluster, TYPE_URL.listener, TYPE_URL.route].map((type) => [type, 'b2']).sort(),
      );
      expect(names(pushed.find((response) => response.type_url === TYPE_URL.listener)!)).toEqual(['mainnet.grpc.example.com', 'suigw-public']);
    } finally {
      client.close();
    }
  });

  it('does not answer an ACK, and does not push the same version twice', async () => {
    const client = adsClient(port);
    try {
      client.stream.write({ node: { id: 'envoy-1' }, type_url: TYPE_URL.cluster });
      const first = await client.next();
      client.stream.write({ type_url: TYPE_URL.cluster, version_info: first.version_info, response_nonce: first.nonce });
      ads.publish(readCase('two-networks'));
      const second = await client.next();
      expect(second.version_info).toBe('3f2a9c0d1e7b4a55');
      ads.publish(readCase('two-networks'));
      // A subscription change is answered; had the ACK or the repeated publish produced a response, it would come first.
      client.stream.write({ type_url: TYPE_URL.endpoint, resource_names: ['suigw-grpc'] });
      const third = await client.next();
      expect([third.type_url, names(third)]).toEqual([TYPE_URL.endpoint, ['suigw-grpc']]);
    } finally {
      client.close();
    }
  });

  it('reports a NACK through a callback that throws without losing the stream', async () => {
    const reported: string[] = [];
    let nacked = () => undefined as void;
    const nackSeen = new Promise<void>((resolve) => (nacked = resolve));
    const own = new AdsServer({
      logger: createLogger('silent'),
      registry: new Registry(),
      onNack: (nack) => {
        reported.push(`${nack.nodeId} ${nack.kind} ${nack.rejectedVersion} ${nack.message}`);
        nacked();
        throw new Error('status write failed');
      },
    });
    const ownPort = await own.listen(0, '127.0.0.1');
    own.publish(readCase('two-networks'));
    const client = adsClient(ownPort);
    try {
      client.stream.write({ node: { id: 'envoy-2' }, type_url: TYPE_URL.cluster });
      const first = await client.next();
      client.stream.write({ type_url: TYPE_URL.cluster, response_nonce: first.nonce, error_detail: { code: 3, message: 'cluster suigw-grpc: bad' } });
      // Publish only after the NACK is in: a NACK arriving after a newer response is stale and ignored.
      await nackSeen;
      own.publish({ ...readCase('two-networks'), version: 'after-nack' });
      expect((await client.next()).version_info).toBe('after-nack');
      expect(reported).toEqual(['envoy-2 cluster 3f2a9c0d1e7b4a55 cluster suigw-grpc: bad']);
    } finally {
      client.close();
      own.close();
    }
  });
});
