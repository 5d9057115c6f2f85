import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How a role is started: from source through tsx (bin/suigw.js) or the build with plain node. */
export const ENTRY_POINTS = {
  source: 'bin/suigw.js',
  build: 'dist/services/cli/suigw.js',
} as const;
export type Variant = keyof typeof ENTRY_POINTS;

export interface RoleLaunch {
  role: string;
  args: string[];
  /** The whole environment of the process (nothing else is inherited). */
  env: NodeJS.ProcessEnv;
  /**
   * The output line that says the role serves; undefined for a role that runs to its end
   * (migrate, --help): its start-up is then the whole run.
   */
  ready?: RegExp;
}

export interface StartupSample {
  /** From spawn to the ready line (or to the exit of a role that runs to its end), ms. */
  startupMs: number;
  /** Resident set size of the process (all threads) at that moment, MB; NaN once it has exited. */
  rssMb: number;
}

/** VmRSS of a live process, from /proc (Linux): what a container's memory limit counts. */
function residentMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * One start of a role in a process of its own: the time until it is ready and its resident
 * memory then, after which it is stopped with SIGTERM (and must exit 0, as the chart expects).
 */
export async function measureStartup(variant: Variant, launch: RoleLaunch): Promise<StartupSample> {
  const started = performance.now();
  const child = spawn(process.execPath, [ENTRY_POINTS[variant], launch.role, ...launch.args], {
    cwd: ROOT,
    env: launch.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stderr.on('data', collect);
  if (!launch.ready) {
    child.stdout.on('data', collect);
    const code = await exited;
    if (code !== 0) throw new Error(`${variant} ${launch.role} exited ${code}:\n${output}`);
    return { startupMs: performance.now() - started, rssMb: Number.NaN };
  }
  const ready = launch.ready;
  const sample = await new Promise<StartupSample>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      collect(chunk);
      if (ready.test(output)) resolve({ startupMs: performance.now() - started, rssMb: residentMb(child.pid!) });
    });
    void exited.then((code) => reject(new Error(`${variant} ${launch.role} exited ${code} before it was ready:\n${output}`)));
  });
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) throw new Error(`${variant} ${launch.role} exited ${code} on SIGTERM:\n${output}`);
  return sample;
}
