import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../core/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

/**
 * Calls through the proxy are counted with the HTTP requests (protocol `grpc`), by method path
 * and the HTTP status their gRPC status is charged as: an answered call, a caller error the
 * upstream returned, a refusal without a key, a 429 at admission, and an unknown path (route `other`, over gRPC-Web).
 */
describe('gRPC proxy: request metrics', () => {
  const metrics = new Metrics({ defaultMetrics: false });
  let e2e: GrpcProxyE2E;
  let exposition: string;

  beforeAll(async () => {
    e2e = await startGrpcProxyE2E({ metrics });
    const key = e2e.gateway.adminKey;
    await e2e.native(key).ledgerService.getServiceInfo({}).response;
    await e2e.web(key).ledgerService.getServiceInfo({}).response;
    await expect(e2e.native(key).ledgerService.getObject({ objectId: `0x${'ab'.repeat(32)}` }).response).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(e2e.native(undefined).ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    // A key capped at 1 call/s, on the manual clock: the second call is refused at admission.
    const capped = await e2e.key({ perKeyRps: 1 });
    await e2e.native(capped).ledgerService.getServiceInfo({}).response;
    await expect(e2e.native(capped).ledgerService.getServiceInfo({}).response).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    const unknown = await fetch(`http://${e2e.host}/no.such.Service/Method`, {
      method: 'POST', headers: { 'content-type': 'application/grpc-web+proto', 'x-api-key': key }, body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    expect(unknown.status).toBe(200);
    await unknown.arrayBuffer();
    exposition = await metrics.registry.metrics();
  });
  afterAll(async () => e2e.stop());

  const samples = (name: string) => exposition.split('\n').filter((line) => line.startsWith(`${name}{`)).sort();

  it('counts each call by method path and charged status, gRPC-Web with native', () => {
    expect(samples('suigw_requests_total')).toEqual([
      'suigw_requests_total{protocol="grpc",route="/sui.rpc.v2.LedgerService/GetObject",method="POST",status="400"} 1',
      'suigw_requests_total{protocol="grpc",route="/sui.rpc.v2.LedgerService/GetServiceInfo",method="POST",status="200"} 3',
      'suigw_requests_total{protocol="grpc",route="/sui.rpc.v2.LedgerService/GetServiceInfo",method="POST",status="400"} 1',
      'suigw_requests_total{protocol="grpc",route="/sui.rpc.v2.LedgerService/GetServiceInfo",method="POST",status="429"} 1',
      // simnet answers UNIMPLEMENTED, charged (and so counted) as 500.
      'suigw_requests_total{protocol="grpc",route="other",method="POST",status="500"} 1',
    ]);
    expect(samples('suigw_request_duration_seconds_count')).toEqual([
      'suigw_request_duration_seconds_count{protocol="grpc",route="/sui.rpc.v2.LedgerService/GetObject",method="POST"} 1',
      'suigw_request_duration_seconds_count{protocol="grpc",route="/sui.rpc.v2.LedgerService/GetServiceInfo",method="POST"} 5',
      'suigw_request_duration_seconds_count{protocol="grpc",route="other",method="POST"} 1',
    ]);
  });
});
