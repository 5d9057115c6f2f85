import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../services/core/index.js';
import { LIVENESS_PATH } from '../../services/http/health.js';
import { translate } from './translate.js';
import type { TranslationInput } from './types.js';

interface Probe {
  httpGet: { path: string; port: string };
}
interface Container {
  env: { name: string; value: string }[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}

function containers(kind: string): Container[] {
  const input = parse(readFileSync(join(import.meta.dirname, '..', 'testdata', 'keys.in.yaml'), 'utf8')) as TranslationInput;
  return translate(input)
    .workloads.filter((workload) => workload['kind'] === kind)
    .map((workload) => {
      const spec = workload['spec'] as { template?: { spec: { containers: Container[] } }; jobTemplate?: { spec: { template: { spec: { containers: Container[] } } } } };
      return (spec.template ?? spec.jobTemplate!.spec.template).spec.containers[0]!;
    });
}

describe("the operator's workloads' probes", () => {
  it('probes each stream worker where `suigw streams` listens: readiness /health, liveness /health/live, on the pod address', () => {
    const workers = containers('Deployment');
    expect(workers.length).toBeGreaterThan(0);
    for (const worker of workers) {
      // The container's own env wins over the Secret's (envFrom), so this is the config the process reads.
      const config = loadConfig(Object.fromEntries(worker.env.map(({ name, value }) => [name, value])));
      const port = (name: string) => worker.ports!.find((p) => p.name === name)?.containerPort;
      expect({ host: config.host, http: config.port, metrics: config.metrics }).toEqual({ host: '0.0.0.0', http: port('http'), metrics: { host: '0.0.0.0', port: port('metrics') } });
      expect(worker.readinessProbe!.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(worker.livenessProbe!.httpGet).toEqual({ path: LIVENESS_PATH, port: 'http' });
    }
  });

  it('gives the billing Job none: `suigw billing` is one pass that serves nothing, then exits', () => {
    const jobs = containers('CronJob');
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expect([job.ports, job.readinessProbe, job.livenessProbe]).toEqual([undefined, undefined, undefined]);
  });
});
