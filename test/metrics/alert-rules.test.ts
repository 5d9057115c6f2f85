import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exportedSeries } from '../support/exported-metrics.js';

/**
 * The chart's alerting rules through Debian's `promtool` (scripts/ensure-prometheus.sh installs
 * it; `make test` runs that first): the file is valid, every alert has promtool cases where it
 * fires and where it must not, queries only series the code exports, and has a runbook.
 */
const RULES = fileURLToPath(new URL('../../charts/suigw/rules/suigw.rules.yaml', import.meta.url));
const CASES = fileURLToPath(new URL('./testdata/alert-rules.test.yaml', import.meta.url));
const OPERATIONS = new URL('../../docs/operations.md', import.meta.url);
const PROMTOOL = '/usr/bin/promtool';

/**
 * Envoy's statistics the rules read, in Prometheus form (`/stats/prometheus`: dots to underscores,
 * the cluster's name as the `envoy_cluster_name` label), from Envoy's documentation of the two
 * HTTP filters the operator configures (operator/xds/http-filters.ts): ext_authz's and the rate
 * limit filter's `cluster.<route target cluster>.ext_authz.*` and `.ratelimit.*` counters.
 */
const ENVOY_STATISTICS = new Set([
  'envoy_cluster_ext_authz_ok', 'envoy_cluster_ext_authz_denied', 'envoy_cluster_ext_authz_error',
  'envoy_cluster_ratelimit_ok', 'envoy_cluster_ratelimit_over_limit', 'envoy_cluster_ratelimit_error', 'envoy_cluster_ratelimit_failure_mode_allowed',
]);

interface Rule { alert: string; expr: string; annotations: Record<string, string> }
interface Case { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }

async function promtool(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(PROMTOOL, args, { cwd: fileURLToPath(new URL('./testdata/', import.meta.url)) });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT') throw new Error(`${PROMTOOL} is missing: run scripts/ensure-prometheus.sh`, { cause: error });
    return { code: Number(failed.code), output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

async function rules(): Promise<Rule[]> {
  const file = parse(await readFile(RULES, 'utf8')) as { groups: { rules: Rule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

describe('the alerting rules', () => {
  it('pass promtool check rules', async () => {
    const { code, output } = await promtool(['check', 'rules', RULES]);
    expect(output).toContain(`SUCCESS: ${(await rules()).length} rules found`);
    expect(code, output).toBe(0);
  });

  it('pass their promtool unit tests', async () => {
    const { code, output } = await promtool(['test', 'rules', CASES]);
    expect(code, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });

  it('each alert has a case where it fires and one where it stays quiet', async () => {
    const cases = (parse(await readFile(CASES, 'utf8')) as { tests: Case[] }).tests.flatMap((test) => test.alert_rule_test);
    for (const { alert } of await rules()) {
      const own = cases.filter((c) => c.alertname === alert);
      expect(own.some((c) => c.exp_alerts.length > 0), `${alert} never fires in a case`).toBe(true);
      expect(own.some((c) => c.exp_alerts.length === 0), `${alert} has no case where it stays quiet`).toBe(true);
    }
  });

  it('query only series the roles export, or Envoy\'s statistics as Envoy documents them', async () => {
    const exported = exportedSeries();
    for (const { alert, expr } of await rules()) {
      const ours = [...expr.matchAll(/\b(suigw_[a-z0-9_]+)\b/g)].map((m) => m[1]!.replace(/_bucket$/, ''));
      // Selectors only (a name before `[` or `{`): `envoy_cluster_name` is a label.
      const envoys = [...expr.matchAll(/\b(envoy_[a-z0-9_]+)\s*[[{]/g)].map((m) => m[1]!);
      expect(ours.length + envoys.length, alert).toBeGreaterThan(0);
      for (const name of ours) expect(exported.has(name), `${alert}: ${name} is not exported`).toBe(true);
      for (const name of envoys) expect(ENVOY_STATISTICS.has(name), `${alert}: ${name} is not one of Envoy's statistics listed here`).toBe(true);
    }
  });

  it('each links its runbook: a section of docs/operations.md', async () => {
    const anchors = new Set([...(await readFile(OPERATIONS, 'utf8')).matchAll(/^#+ (.+)$/gm)].map((m) => githubAnchor(m[1]!)));
    for (const { alert, annotations } of await rules()) {
      expect(annotations.runbook_url).toBe(`https://github.com/suigw/suigw/blob/main/docs/operations.md#${alert.toLowerCase()}`);
      expect(anchors.has(alert.toLowerCase()), `docs/operations.md has no section ${alert}`).toBe(true);
    }
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function githubAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^a-z0-9 _-]/g, '').replace(/ /g, '-');
}
