import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';

/** One series of an instant query's answer (`resultType: vector`). */
export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PrometheusServer {
  url: string;
  /** An instant query through the HTTP API (`/api/v1/query`); throws on a query error. */
  query(expr: string): Promise<VectorSample[]>;
  stop(): Promise<void>;
}

const PROMETHEUS = '/usr/bin/prometheus';

/**
 * Debian's `prometheus` (scripts/ensure-prometheus.sh) on a free loopback port, scraping
 * `targets` (URLs of /metrics endpoints) every second, its storage in a temporary directory.
 */
export async function startPrometheus(targets: readonly string[], options: { startTimeoutMs?: number } = {}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'suigw-prometheus-'));
  const jobs = targets.map((target, index) => {
    const url = new URL(target);
    return [
      `  - job_name: target-${index}`,
      `    metrics_path: ${url.pathname}`,
      `    static_configs: [{ targets: ['${url.host}'] }]`,
    ].join('\n');
  });
  await writeFile(join(dir, 'prometheus.yml'), ['global:', '  scrape_interval: 1s', '  evaluation_interval: 1s', 'scrape_configs:', ...jobs, ''].join('\n'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(PROMETHEUS, [
    `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-4_000);
  });
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, () => spawnError ?? (child.exitCode === null ? undefined : new Error(`exited with ${child.exitCode}`)), options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw new Error(`prometheus did not start: ${error instanceof Error ? error.message : String(error)}\n${log}`, { cause: error });
  }
  return {
    url,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query`, { method: 'POST', body: new URLSearchParams({ query: expr }) });
      const body = await response.json() as { status: string; error?: string; data?: { resultType: string; result: VectorSample[] } };
      if (response.status !== 200 || body.status !== 'success') throw new Error(`${expr}: ${response.status} ${body.error ?? ''}`);
      if (body.data!.resultType !== 'vector') throw new Error(`${expr}: a ${body.data!.resultType}, not a vector`);
      return body.data!.result;
    },
    stop,
  };
}

/** Polls `/-/ready` (the deadline only bounds a hang: a busy machine starts it slowly). */
async function waitReady(url: string, failed: () => Error | undefined, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const failure = failed();
    if (failure) throw new Error(`${PROMETHEUS}: ${failure.message} (scripts/ensure-prometheus.sh installs it)`, { cause: failure });
    try {
      if ((await fetch(`${url}/-/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
