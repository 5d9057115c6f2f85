import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../services/core/index.js';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';

/**
 * The metrics of a gateway over a real simnet after known traffic: a data request, a management
 * request, a 401, a key with a 1 request/s cap created over HTTP and hit twice (200 then 429), an
 * unknown address. Every sample below is exact: the traffic is the test's own, the clock is manual.
 */
describe('metrics after known traffic through the gateway', () => {
  const metrics = new Metrics();
  let e2e: RestE2E;
  let exposition: string;
  /** What the gateway told the organization it has left, on its last charged request (the 429). */
  let creditRemainingHeader: string | undefined;

  beforeAll(async () => {
    e2e = await startRestE2E({ extra: { metrics } });
    const { app, adminKey, projects } = e2e.gateway;
    const inject = (method: 'GET' | 'POST', url: string, key: string | undefined, payload?: object) =>
      app.inject({ method, url, headers: key ? { 'x-api-key': key } : {}, ...(payload ? { payload } : {}) });
    expect((await inject('GET', '/mainnet/v1/chain', adminKey)).statusCode).toBe(200);
    expect((await inject('GET', '/mainnet/v1/keys', adminKey)).statusCode).toBe(200);
    expect((await inject('GET', '/mainnet/v1/chain', undefined)).statusCode).toBe(401);
    const created = await inject('POST', '/mainnet/v1/keys', adminKey, { name: 'capped', projectId: projects.mainnet, scopes: ['data'], rateLimit: { perKeyRps: 1 } });
    expect(created.statusCode, created.body).toBe(201);
    const cappedKey = (created.json() as { data: { apiKey: string } }).data.apiKey;
    expect((await inject('GET', '/mainnet/v1/chain', cappedKey)).statusCode).toBe(200);
    const refused = await inject('GET', '/mainnet/v1/chain', cappedKey);
    expect(refused.statusCode).toBe(429);
    creditRemainingHeader = refused.headers['x-svc-credit-remaining'] as string | undefined;
    expect((await inject('GET', '/mainnet/v1/no-such-route', adminKey)).statusCode).toBe(404);
    exposition = await metrics.registry.metrics();
  }, 60_000);
  afterAll(async () => e2e.stop());

  const samples = (name: string) => exposition.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

  it('counts requests by protocol, route pattern (never the URL), method and status', () => {
    expect(samples('suigw_requests_total').sort()).toEqual([
      'suigw_requests_total{protocol="management",route="/mainnet/v1/keys",method="GET",status="200"} 1',
      'suigw_requests_total{protocol="management",route="/mainnet/v1/keys",method="POST",status="201"} 1',
      'suigw_requests_total{protocol="none",route="unmatched",method="GET",status="404"} 1',
      'suigw_requests_total{protocol="rest",route="/mainnet/v1/chain",method="GET",status="200"} 2',
      'suigw_requests_total{protocol="rest",route="/mainnet/v1/chain",method="GET",status="401"} 1',
      'suigw_requests_total{protocol="rest",route="/mainnet/v1/chain",method="GET",status="429"} 1',
    ]);
    expect(samples('suigw_request_duration_seconds_count')).toContain(
      'suigw_request_duration_seconds_count{protocol="rest",route="/mainnet/v1/chain",method="GET"} 4',
    );
  });

  it('charges credits to the organization and its plan, shows what it has left, and counts the 429 by kind (the others at 0)', () => {
    expect(samples('suigw_credits_consumed_total')).toEqual([
      `suigw_credits_consumed_total{organization="${e2e.gateway.organizationId}",plan="team"} 2`,
    ]);
    expect(samples('suigw_rate_limit_rejections_total')).toEqual([
      'suigw_rate_limit_rejections_total{kind="key_or_ip"} 1',
      'suigw_rate_limit_rejections_total{kind="organization"} 0',
      'suigw_rate_limit_rejections_total{kind="quota"} 0',
      'suigw_rate_limit_rejections_total{kind="proofs"} 0',
    ]);
    expect(creditRemainingHeader).toMatch(/^[0-9]+$/);
    expect(samples('suigw_credits_remaining')).toEqual([
      `suigw_credits_remaining{organization="${e2e.gateway.organizationId}"} ${creditRemainingHeader}`,
    ]);
    expect(samples('suigw_limiter_store_failures_total')).toEqual(['suigw_limiter_store_failures_total{backend="redis",decision="allowed"} 0']);
  });

  it('counts upstream attempts per network, api and method, and the breaker state per group', () => {
    const calls = samples('suigw_upstream_calls_total');
    expect(calls).toContain('suigw_upstream_calls_total{network="mainnet",api="grpc",method="GetServiceInfo",outcome="ok"} 2');
    expect(calls).toContain('suigw_upstream_calls_total{network="mainnet",api="grpc",method="GetEpoch",outcome="ok"} 2');
    expect(calls.every((line) => line.includes('network="mainnet",api="grpc"') && line.includes('outcome="ok"'))).toBe(true);
    expect(samples('suigw_upstream_call_duration_seconds_count')).toContain(
      'suigw_upstream_call_duration_seconds_count{network="mainnet",api="grpc",method="GetEpoch"} 2',
    );
    expect(samples('suigw_upstream_breaker_state')).toEqual(['suigw_upstream_breaker_state{network="mainnet",group="grpc"} 0']);
  });

  it('counts key cache hits and misses: each key misses once, then hits', () => {
    // admin: GET /chain (miss), GET /keys, POST /keys (hits); capped key: miss, hit; the 401 had no key.
    expect(samples('suigw_key_cache_lookups_total').sort()).toEqual([
      'suigw_key_cache_lookups_total{result="hit"} 3',
      'suigw_key_cache_lookups_total{result="miss"} 2',
    ]);
  });

  it('exports the event-loop lag', () => {
    expect(samples('nodejs_eventloop_lag_p99_seconds')).toHaveLength(1);
  });
});
