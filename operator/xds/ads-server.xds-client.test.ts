import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { GrpcTypes } from '@mysten/sui/grpc';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../services/core/index.js';
import type { GatewayIR } from '../ir.js';
import { startSimnet, type RunningSimnet } from '../../services/simnet/index.js';
import { AdsServer } from './ads-server.js';
import type { XdsNack } from './ads-stream.js';
import { readCase } from '../../test/support/xds-golden-cases.js';
import { translateToEnvoy } from './translate-envoy.js';

/**
 * Our ADS consumed by the real proxyless gRPC xDS client (@grpc/grpc-js-xds): a channel with
 * target `xds:///mainnet.grpc.example.com` learns listener → route → cluster → endpoints from us
 * and calls simnet's real sui.rpc.v2 server.
 */
const GRPC_HOST = 'mainnet.grpc.example.com';
const BOOTSTRAP_KEY = 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config';

xds.register();

function irPointingAt(grpcHost: string, version: string): GatewayIR {
  const ir = readCase('two-networks');
  const [address, port] = grpcHost.split(':');
  ir.backends.grpc = { ...ir.backends.grpc, endpoints: [{ address: address!, port: Number(port) }] };
  return { ...ir, version };
}

function xdsChannel(adsPort: number): grpc.Client {
  const bootstrap = {
    xds_servers: [{ server_uri: `127.0.0.1:${adsPort}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
    node: { id: 'xds-client-test', locality: {} },
  };
  return new grpc.Client(`xds:///${GRPC_HOST}`, grpc.credentials.createInsecure(), { [BOOTSTRAP_KEY]: JSON.stringify(bootstrap) });
}

/** LedgerService/GetServiceInfo through the channel: the chain id tells which simnet answered. */
function chainIdVia(client: grpc.Client): Promise<string> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      '/sui.rpc.v2.LedgerService/GetServiceInfo',
      (request: Uint8Array) => Buffer.from(request),
      (bytes: Buffer) => GrpcTypes.GetServiceInfoResponse.fromBinary(bytes),
      GrpcTypes.GetServiceInfoRequest.toBinary({}),
      { deadline: Date.now() + 10_000 },
      (error, response) => (error ? reject(error) : resolve(response!.chainId ?? '')),
    );
  });
}

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, attempts = 100): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    last = await probe().catch(() => undefined);
    if (last !== undefined && accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met; last value ${String(last)}`);
}

describe('ADS served to a real @grpc/grpc-js-xds client', () => {
  let first: RunningSimnet;
  let second: RunningSimnet;
  let ads: AdsServer;
  let adsPort: number;
  const nacks: XdsNack[] = [];
  const registry = new Registry();

  beforeAll(async () => {
    [first, second] = await Promise.all([startSimnet({ seed: 'xds-first', autoStart: false }), startSimnet({ seed: 'xds-second', autoStart: false })]);
    ads = new AdsServer({ logger: createLogger('silent'), registry, onNack: (nack) => nacks.push(nack) });
    adsPort = await ads.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    ads?.close();
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('gets listener, route, cluster and endpoints from our ADS and makes a real call to the backend', async () => {
    expect(first.chainId).not.toBe(second.chainId);
    ads.publish(irPointingAt(first.grpcHost, 'v1'));
    const client = xdsChannel(adsPort);
    try {
      expect(await chainIdVia(client)).toBe(first.chainId);
    } finally {
      client.close();
    }
    const metrics = await registry.getSingleMetricAsString('suigw_xds_acks_total');
    for (const type of ['listener', 'route', 'cluster', 'endpoint']) expect(metrics).toMatch(new RegExp(`\\{type="${type}"\\} [1-9]`));
    expect(nacks).toEqual([]);
  });

  it('pushes a changed IR to the connected client, which routes to the new endpoint', async () => {
    ads.publish(irPointingAt(first.grpcHost, 'v2'));
    const client = xdsChannel(adsPort);
    try {
      expect(await chainIdVia(client)).toBe(first.chainId);
      // Pushed on publish, no polling involved (bench/xds-propagation.ts measures how fast).
      ads.publish(irPointingAt(second.grpcHost, 'v3'));
      expect(await eventually(() => chainIdVia(client), (chainId) => chainId === second.chainId)).toBe(second.chainId);
    } finally {
      client.close();
    }
    expect(nacks).toEqual([]);
  });

  it('reports a resource the client rejects as a NACK through the callback, and keeps serving', async () => {
    ads.publish(irPointingAt(first.grpcHost, 'v4'));
    const client = xdsChannel(adsPort);
    try {
      expect(await chainIdVia(client)).toBe(first.chainId);
      // The same snapshot with ext_authz required on the proxyless listener: gRPC clients do not
      // implement it and must reject the listener (NOTES: filters they lack must be is_optional).
      const rejected = translateToEnvoy(irPointingAt(first.grpcHost, 'v5-bad'));
      for (const listener of rejected.listeners) {
        const manager = (listener.api_listener as { api_listener: { http_filters: { is_optional?: boolean }[] } } | undefined)?.api_listener;
        for (const filter of manager?.http_filters ?? []) delete filter.is_optional;
      }
      ads.publishSnapshot(rejected);
      const nack = await eventually(async () => nacks.find((entry) => entry.rejectedVersion === 'v5-bad'), (found) => found !== undefined);
      expect(nack).toMatchObject({ nodeId: 'xds-client-test', kind: 'listener', acceptedVersion: 'v4', rejectedVersion: 'v5-bad' });
      expect(nack!.message).toContain('envoy.filters.http.ext_authz');
      // The client keeps its last accepted configuration and still gets through.
      expect(await chainIdVia(client)).toBe(first.chainId);
    } finally {
      client.close();
    }
    expect(await registry.getSingleMetricAsString('suigw_xds_nacks_total')).toMatch(/suigw_xds_nacks_total\{type="listener"\} [1-9]/);
  });
});
