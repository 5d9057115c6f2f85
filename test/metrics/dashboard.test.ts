import { describe, expect, it } from 'vitest';
import { dashboardQueries } from '../support/dashboard-queries.js';
import { exportedSeries } from '../support/exported-metrics.js';

/**
 * The Grafana dashboard shipped in charts/ queries only series the roles really export, with
 * labels those series really have: a renamed metric or label fails here, at once, not on a blank
 * panel. That each panel has data after real traffic is test/metrics/prometheus.e2e.test.ts.
 */
const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;
const PROMQL_WORDS = new Set(['sum', 'by', 'rate', 'increase', 'histogram_quantile', 'topk', 'bottomk', 'max', 'min', 'le', 'without']);

function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\b((?:suigw|nodejs|process)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
}

function labelsUsed(expr: string): string[] {
  const grouped = [...expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()));
  const matched = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/([a-z_]+)\s*=~?/g)].map((l) => l[1]!));
  return [...grouped, ...matched].filter((label) => label !== '' && !PROMQL_WORDS.has(label));
}

describe('the Grafana dashboard', () => {
  it('queries only series that the roles export, with their labels', async () => {
    const exported = exportedSeries();
    const all = await dashboardQueries();
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

  it('shows credits, rate limits, the Warp ingest and webhook delivery', async () => {
    const exprs = (await dashboardQueries()).map((q) => q.expr).join('\n');
    for (const name of ['suigw_credits_consumed_total', 'suigw_credits_remaining', 'suigw_rate_limit_rejections_total', 'suigw_warp_checkpoints_ingested_total', 'suigw_webhook_attempts_total', 'suigw_webhook_oldest_due_seconds']) {
      expect(exprs).toContain(name);
    }
  });
});
