import * as grpc from '@grpc/grpc-js';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../services/core/index.js';
import { AdsServer } from './ads-server.js';
import { readCase } from '../../test/support/xds-golden-cases.js';
import { translateToEnvoy } from './translate-envoy.js';

describe('ADS server: what it refuses to serve', () => {
  it('refuses a snapshot with a field Envoy would never see, and keeps serving the previous one', () => {
    const ads = new AdsServer({ logger: createLogger('silent'), registry: new Registry() });
    ads.publish(readCase('two-networks'));
    const broken = translateToEnvoy({ ...readCase('two-networks'), version: 'broken' });
    broken.clusters[0] = { ...broken.clusters[0], lb_polcy: 'RING_HASH' };
    expect(() => ads.publishSnapshot(broken)).toThrow('xDS cluster suigw-authz does not survive Envoy\'s protos: $.lb_polcy');
    expect(ads.version).toBe('3f2a9c0d1e7b4a55');
    ads.close();
  });

  it('answers the delta protocol with UNIMPLEMENTED rather than a half-served stream', async () => {
    const ads = new AdsServer({ logger: createLogger('silent'), registry: new Registry() });
    const port = await ads.listen(0, '127.0.0.1');
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const status = await new Promise<number>((resolve) => {
      const call = client.makeBidiStreamRequest(
        '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources',
        (value: Buffer) => value,
        (value: Buffer) => value,
      );
      call.on('data', () => undefined);
      call.on('error', (error: { code: number }) => resolve(error.code));
      call.write(Buffer.alloc(0));
    });
    expect(status).toBe(grpc.status.UNIMPLEMENTED);
    client.close();
    ads.close();
  });
});
