import { describe, expect, it } from 'vitest';
import { PIPELINE } from '../../services/pipeline/index.js';
import { HTTP_FILTER_CHAIN, httpFilters } from './http-filters.js';
import { readCase } from '../../test/support/xds-golden-cases.js';

const context = { backends: readCase('two-networks').backends, ratelimitDomain: 'suigw' };

describe('the HTTP filter chain: one ordered table, derived from the request pipeline', () => {
  it('is ext_authz, ratelimit, grpc_web, cors, router', () => {
    expect(HTTP_FILTER_CHAIN.map((filter) => filter.name)).toEqual([
      'envoy.filters.http.ext_authz',
      'envoy.filters.http.ratelimit',
      'envoy.filters.http.grpc_web',
      'envoy.filters.http.cors',
      'envoy.filters.http.router',
    ]);
  });

  it('performs the pipeline stages in the pipeline order', () => {
    const stages = HTTP_FILTER_CHAIN.flatMap((filter) => (filter.stage ? [filter.stage] : []));
    const pipelineStagesWithFilters = PIPELINE.filter((stage) => stage.envoy.startsWith('envoy.filters.http.')).map((stage) => stage.name);
    expect(stages).toEqual(pipelineStagesWithFilters);
    for (const filter of HTTP_FILTER_CHAIN.filter((candidate) => candidate.stage)) {
      expect(PIPELINE.find((stage) => stage.name === filter.stage)?.envoy).toBe(filter.name);
    }
  });

  it('makes Envoy require every filter and proxyless clients skip all but the router', () => {
    expect(httpFilters(context, 'envoy').map((filter) => filter.is_optional)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(httpFilters(context, 'proxyless').map((filter) => filter.is_optional)).toEqual([true, true, true, true, undefined]);
  });

  it('denies when the authz service does not answer within 200 ms', () => {
    const [authz] = httpFilters(context, 'envoy');
    expect(authz!.typed_config).toMatchObject({
      grpc_service: { envoy_grpc: { cluster_name: 'suigw-authz' }, timeout: { seconds: 0, nanos: 200_000_000 } },
      failure_mode_allow: false,
      status_on_error: { code: 'ServiceUnavailable' },
    });
  });

  it('allows when the rate limit service does not answer within 20 ms, and leaves the X-RateLimit-* headers to the services (the spec\'s Reset is Unix time)', () => {
    const [, ratelimit] = httpFilters(context, 'envoy');
    expect(ratelimit!.typed_config).toMatchObject({
      domain: 'suigw',
      timeout: { seconds: 0, nanos: 20_000_000 },
      failure_mode_deny: false,
      rate_limit_service: { grpc_service: { envoy_grpc: { cluster_name: 'suigw-ratelimit' } }, transport_api_version: 'V3' },
    });
    expect(ratelimit!.typed_config).not.toHaveProperty('enable_x_ratelimit_headers');
  });
});
