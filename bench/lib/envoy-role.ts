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
 * nothing else; `nodeFlags` go before the entry (e.g. a V8 heap setting). Ready once it logged its
 * `listening` line (JSON at LOG_LEVEL=info), which names the port and the metrics URL; the rest of
 * its log is read and dropped, as a container runtime would keep it.
 */
export async function startEnvoyRole(
  role: 'authz' | 'ratelimit', name: string, env: NodeJS.ProcessEnv, root = ROOT, nodeFlags: readonly string[] = [],
): Promise<ServiceProcess<EnvoyRoleReady>> {
  const child = spawn(process.execPath, [...nodeFlags, ...entryArguments('services/cli/suigw.ts', root), role, '--port', '0'], {
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
  let refused = 0;
  for (const line of await exposedLines(role)) {
    if (line.startsWith('suigw_rate_limit_rejections_total')) refused += sampleValue(line);
  }
  return refused;
}

/** The lines of a role's Prometheus exposition, read from its /metrics now. */
async function exposedLines(role: ServiceProcess<EnvoyRoleReady>): Promise<string[]> {
  if (!role.ready.metricsUrl) throw new Error(`${role.name} serves no /metrics`);
  return (await (await fetch(role.ready.metricsUrl)).text()).split('\n');
}

/** The value of one sample line (`name{labels} value`). */
function sampleValue(line: string): number {
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** A role's garbage collection so far, from prom-client's `nodejs_gc_duration_seconds` on its /metrics. */
export interface GcTotals {
  /** Mark-compacts (`kind="major"`): the pauses that can outlast Envoy's ext_authz and rate-limit timeouts. */
  majors: number;
  majorSeconds: number;
  /** Mark-compacts longer than 10 ms and than 100 ms (the histogram's buckets). */
  majorsOver10ms: number;
  majorsOver100ms: number;
  /** Scavenges (`kind="minor"`). */
  minors: number;
  minorSeconds: number;
  /** The process's resident memory when read (`process_resident_memory_bytes`), against the chart's memory requests. */
  residentBytes: number;
}

const GC_LINE = /^nodejs_gc_duration_seconds_(bucket|sum|count)\{(?:le="([^"]+)",)?kind="(major|minor)"\} \S+$/;

export async function gcTotalsOf(role: ServiceProcess<EnvoyRoleReady>): Promise<GcTotals> {
  const totals: GcTotals = { majors: 0, majorSeconds: 0, majorsOver10ms: 0, majorsOver100ms: 0, minors: 0, minorSeconds: 0, residentBytes: 0 };
  let majorsWithin10ms = 0;
  let majorsWithin100ms = 0;
  for (const line of await exposedLines(role)) {
    if (line.startsWith('process_resident_memory_bytes ')) totals.residentBytes = sampleValue(line);
    const match = GC_LINE.exec(line);
    if (!match) continue;
    const [, series, le, kind] = match;
    const number = sampleValue(line);
    if (series === 'count') totals[kind === 'major' ? 'majors' : 'minors'] = number;
    else if (series === 'sum') totals[kind === 'major' ? 'majorSeconds' : 'minorSeconds'] = number;
    else if (kind === 'major' && le === '0.01') majorsWithin10ms = number;
    else if (kind === 'major' && le === '0.1') majorsWithin100ms = number;
  }
  totals.majorsOver10ms = totals.majors - majorsWithin10ms;
  totals.majorsOver100ms = totals.majors - majorsWithin100ms;
  return totals;
}

/** What happened between two readings of the same role (the resident memory: at the second). */
export function gcBetween(before: GcTotals, after: GcTotals): GcTotals {
  return {
    residentBytes: after.residentBytes,
    majors: after.majors - before.majors,
    majorSeconds: after.majorSeconds - before.majorSeconds,
    majorsOver10ms: after.majorsOver10ms - before.majorsOver10ms,
    majorsOver100ms: after.majorsOver100ms - before.majorsOver100ms,
    minors: after.minors - before.minors,
    minorSeconds: after.minorSeconds - before.minorSeconds,
  };
}
