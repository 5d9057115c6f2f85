import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { operatorSettings } from '../../operator/settings.js';
import { streamWorkerDeployment } from '../../operator/translate/workloads.js';
import { loadConfig } from '../../services/core/index.js';
import { CHART_DIR, helm } from '../support/helm.js';
import { schemaErrors, type KubeObject } from './kubernetes-schemas.js';

/**
 * The stream workers the operator creates have no Service, so the chart's ServiceMonitor never
 * reached them: a PodMonitor does, under the same switch (metrics.serviceMonitor), at the metrics
 * port the NetworkPolicy `<release>-stream-workers` opens.
 */
const PROMETHEUS_OPERATOR = ['--api-versions', 'monitoring.coreos.com/v1/ServiceMonitor', '--api-versions', 'monitoring.coreos.com/v1/PodMonitor'];

async function render(args: string[]): Promise<KubeObject[]> {
  const { stdout } = await helm(['template', 'suigw', CHART_DIR, '--namespace', 'suigw', ...args]);
  return parseAllDocuments(stdout).map((document) => document.toJS() as KubeObject | null).filter((object): object is KubeObject => object !== null);
}

interface PodMonitorSpec {
  selector: { matchLabels: Record<string, string> };
  podMetricsEndpoints: { port: string; path: string; interval: string }[];
}

interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: { ports: { name: string }[]; env: { name: string; value: string }[] }[] };
}

describe("the operator's stream workers scraped by Prometheus (PodMonitor)", () => {
  it('selects the pods of the operator-made stream workers, at their metrics port, and not the chart\'s own streams role (its ServiceMonitor scrapes that)', async () => {
    const objects = await render([...PROMETHEUS_OPERATOR, '--set', 'metrics.serviceMonitor.interval=15s', '--set', 'metrics.serviceMonitor.labels.release=kube-prometheus-stack']);
    const monitors = objects.filter((o) => o.kind === 'PodMonitor');
    expect(monitors.map((o) => o.metadata.name)).toEqual(['suigw-stream-workers']);
    expect(monitors.map(schemaErrors)).toEqual(['']);
    expect(monitors[0]!.metadata.labels!.release).toBe('kube-prometheus-stack');
    const spec = monitors[0]!.spec as PodMonitorSpec;
    expect(spec.podMetricsEndpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s' }]);

    const operator = (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'suigw-operator')!.spec as { template: PodTemplate }).template.spec.containers[0]!;
    const env = Object.fromEntries(operator.env.filter((v) => v.value !== undefined).map((v) => [v.name, v.value]));
    const settings = { ...operatorSettings(loadConfig({ ...env, SUIGW_OPERATOR_NAMESPACE: 'suigw' })), now: '2026-12-07T00:00:00.000Z' };
    const worker = (streamWorkerDeployment(settings, 'mainnet', 1, 10) as { metadata: { namespace: string }; spec: { template: PodTemplate } });
    const selects = (labels: Record<string, string>) => Object.entries(spec.selector.matchLabels).every(([key, value]) => labels[key] === value);
    // A PodMonitor without a namespaceSelector watches its own namespace: the release's, where the operator puts its workers.
    expect([selects(worker.spec.template.metadata.labels), worker.metadata.namespace]).toEqual([true, 'suigw']);
    expect(worker.spec.template.spec.containers[0]!.ports.map((port) => port.name)).toContain('metrics');
    const role = (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'suigw-streams')!.spec as { template: PodTemplate }).template;
    expect(selects(role.metadata.labels)).toBe(false);
  });

  it('follows metrics.serviceMonitor.enabled: auto renders it where the cluster serves PodMonitor, true always, false never', async () => {
    const names = async (args: string[]) => (await render(args)).filter((o) => o.kind === 'PodMonitor').map((o) => o.metadata.name);
    expect(await names([])).toEqual([]);
    expect(await names(['--api-versions', 'monitoring.coreos.com/v1/ServiceMonitor'])).toEqual([]);
    expect(await names(['--set', 'metrics.serviceMonitor.enabled=true'])).toEqual(['suigw-stream-workers']);
    expect(await names([...PROMETHEUS_OPERATOR, '--set', 'metrics.serviceMonitor.enabled=false'])).toEqual([]);
  });
});
