import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { cpuOf, entryArguments, type ServiceProcess } from './service-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface EnvoyRoleReady {
  /** h2c address of the gRPC service, `127.0.0.1:PORT`. */
  address: string;
  /** The role's /metrics (SUIGW_METRICS_PORT=0: a free port, named in its `listening` line). */
  metricsUrl: string | undefined;
}

/**
 * `suigw authz` or `suigw ratelimit` started as an operator starts it: the CLI as production runs
 * it (compiled, `node …/services/cli/suigw.js`, from the benchmark build; through tsx with
 * BENCH_FROM_SOURCE=1), from `root` (this checkout by default), `--port 0`, one process
 * (SUIGW_WORKERS=1, so that it is priced against one bare process), the environment given and
 * nothing else. Ready once it logged its `listening` line (JSON at LOG_LEVEL=info), which names
 * the port and the metrics URL; the rest of its log is read and dropped, as a container runtime
 * would keep it.
 */
export async function startEnvoyRole(role: 'authz' | 'ratelimit', name: string, env: NodeJS.ProcessEnv, root = ROOT): Promise<ServiceProcess<EnvoyRoleReady>> {
  const child = spawn(process.execPath, [...entryArguments('services/cli/suigw.ts', root), role, '--port', '0'], {
    cwd: root,
    env: { ...env, HOST: '127.0.0.1', SUIGW_METRICS_PORT: '0', SUIGW_WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  let output = '';
  const ready = await new Promise<EnvoyRoleReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.includes('listening"')) continue;
        const logged = JSON.parse(line) as { port: number; metricsUrl?: string };
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ address: `127.0.0.1:${logged.port}`, metricsUrl: logged.metricsUrl });
        return;
      }
    };
    child.stdout.on('data', onData);
    void exited.then(([code, signal]) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${String(code ?? signal)}) before listening:\n${output}`));
    });
  });
  return {
    name,
    pid: child.pid!,
    ready,
    cpuMicros: cpuOf(child, name),
    onMessage: () => undefined,
    signalForReply: () => Promise.reject(new Error(`${name} answers no signal`)),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The requests a ratelimit role refused so far by its own count (`suigw_rate_limit_rejections_total`,
 * every kind): an OVER_LIMIT answer is an HTTP 200 to h2load.
 */
export async function refusalsOf(role: ServiceProcess<EnvoyRoleReady>): Promise<number> {
  if (!role.ready.metricsUrl) throw new Error(`${role.name} serves no /metrics`);
  const text = await (await fetch(role.ready.metricsUrl)).text();
  let refused = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('suigw_rate_limit_rejections_total')) refused += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return refused;
}
