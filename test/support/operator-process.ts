import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeConfigFor, startApiDouble } from './kube-api-server/harness.js';
import { freePort } from './processes.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface OperatorProcess {
  metricsUrl: string;
  xdsPort: number;
  stop(): Promise<void>;
}

/**
 * `suigw operator` as a process of its own (`node bin/suigw.js operator`), against the
 * Kubernetes API-server double through a kubeconfig file (KUBECONFIG, as kubectl reads it), on
 * its embedded database, with its /metrics and xDS on free ports (`env` adds settings); resolves
 * once /metrics answers.
 */
export async function startOperatorProcess(options: { env?: Record<string, string>; startTimeoutMs?: number } = {}): Promise<OperatorProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'suigw-operator-'));
  const { api, url } = await startApiDouble();
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeConfigFor(url, 'operator').exportConfig());
  const [metricsPort, xdsPort] = [await freePort(), await freePort()];
  const env: Record<string, string | undefined> = {
    ...process.env, KUBECONFIG: kubeconfig, SUIGW_DATA_DIR: dir, HOST: '127.0.0.1', SUIGW_METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn',
  };
  delete env['DATABASE_URL'];
  Object.assign(env, options.env);
  const child = spawn(process.execPath, ['bin/suigw.js', 'operator', '--xds-port', String(xdsPort)], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await api.close();
    await rm(dir, { recursive: true, force: true });
  };
  // Generous: the embedded database is migrated first, slow on a busy machine.
  const until = Date.now() + (options.startTimeoutMs ?? 150_000);
  for (;;) {
    try {
      if ((await fetch(metricsUrl)).status === 200) return { metricsUrl, xdsPort, stop };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > until) {
      await stop();
      throw new Error(child.exitCode === null ? `suigw operator: no /metrics within the deadline` : `suigw operator exited (${child.exitCode})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
