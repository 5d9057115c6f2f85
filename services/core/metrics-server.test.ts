import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';

describe('the metrics listener', () => {
  const metrics = new Metrics();
  let server: MetricsServer;
  beforeAll(async () => {
    server = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => server.close());

  it('answers a plain GET /metrics in the Prometheus text format, with the counters as they are', async () => {
    metrics.rateLimitRejections.inc({ kind: 'quota' }, 3);
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await response.text();
    expect(body).toContain('# TYPE suigw_rate_limit_rejections_total counter');
    expect(body).toContain('suigw_rate_limit_rejections_total{kind="quota"} 3');
    expect(body).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it('serves nothing else', async () => {
    expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
    const post = await fetch(server.url, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
