import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../services/core/metrics.js';
import { startMetricsServer, type MetricsServer } from '../../services/http/index.js';
import { startRestE2E, type RestE2E } from '../support/rest-e2e.js';

/**
 * The Grafana dashboard shipped in charts/ queries only series the service really exports, with
 * labels those series really have: a renamed metric or label fails here, not on a blank panel.
 */
const DASHBOARD = new URL('../../charts/suigw/dashboards/suigw.json', import.meta.url);
const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;
const PROMQL_WORDS = new Set(['sum', 'by', 'rate', 'increase', 'histogram_quantile', 'topk', 'max', 'le', 'without']);

interface Panel { title: string; targets?: { expr: string }[] }

async function queries(): Promise<{ panel: string; expr: string }[]> {
  const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as { panels: Panel[] };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
}

function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\b((?:suigw|nodejs|process)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
}

function labelsUsed(expr: string): string[] {
  const grouped = [...expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()));
  const matched = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/([a-z_]+)\s*=~?/g)].map((l) => l[1]!));
  return [...grouped, ...matched].filter((label) => label !== '' && !PROMQL_WORDS.has(label));
}

describe('the Grafana dashboard', () => {
  it('queries only series that the service exports, with their labels', async () => {
    const metrics = new Metrics();
    const exported = new Map<string, readonly string[]>();
    for (const metric of await metrics.registry.getMetricsAsJSON()) {
      const instrument = metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames?: readonly string[] } | undefined;
      exported.set(metric.name, instrument?.labelNames ?? []);
    }
    const all = await queries();
    expect(all.length).toBeGreaterThan(8);
    for (const { panel, expr } of all) {
      const names = metricNames(expr);
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) {
        const base = exported.has(name) ? name : name.replace(HISTOGRAM_SUFFIX, '');
        expect(exported.has(base), `${panel}: ${name} is not exported`).toBe(true);
        for (const label of labelsUsed(expr)) {
          expect(exported.get(base), `${panel}: ${name} has no label ${label}`).toContain(label);
        }
      }
    }
  });

  describe('against a live gateway after traffic', () => {
    const metrics = new Metrics();
    let e2e: RestE2E;
    let server: MetricsServer;
    let scrape: string;

    beforeAll(async () => {
      e2e = await startRestE2E({ extra: { metrics } });
      server = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0 });
      const { app, adminKey } = e2e.gateway;
      expect((await app.inject({ url: '/mainnet/v1/chain', headers: { 'x-api-key': adminKey } })).statusCode).toBe(200);
      expect((await app.inject({ url: '/mainnet/v1/keys', headers: { 'x-api-key': adminKey } })).statusCode).toBe(200);
      const response = await fetch(server.url);
      expect(response.status).toBe(200);
      scrape = await response.text();
    }, 60_000);
    afterAll(async () => {
      await server.close();
      await e2e.stop();
    });

    it('the scrape has a sample of every series the dashboard queries', async () => {
      const sampled = new Set(scrape.split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => line.split(/[{ ]/)[0]!));
      for (const { panel, expr } of await queries()) {
        for (const name of metricNames(expr)) expect(sampled.has(name), `${panel}: ${name} is not in the scrape`).toBe(true);
      }
    });
  });

  it('shows credits and rate limits', async () => {
    const exprs = (await queries()).map((q) => q.expr).join('\n');
    expect(exprs).toContain('suigw_credits_consumed_total');
    expect(exprs).toContain('suigw_rate_limit_rejections_total');
  });
});
