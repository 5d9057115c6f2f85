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
  /** Scavenges (`kind="minor"`). */
  minors: number;
  minorSeconds: number;
  /**
   * Pauses longer than each of the histogram's bounds up to 200 ms, by kind (`le` as written:
   * "0.01", "0.02", "0.1", "0.2"); 0 before the first pause of a kind; absent for a bound the
   * role's histogram lacks (a tree from before its buckets at Envoy's timeouts).
   */
  over: Record<GcKind, Partial<Record<PauseBound, number>>>;
  /** The process's resident memory when read (`process_resident_memory_bytes`), against the chart's memory requests. */
  residentBytes: number;
}

type GcKind = 'major' | 'minor';
/** 10 and 100 ms (prom-client's buckets), 20 and 200 ms (Envoy's ratelimit and authz timeouts). */
export const PAUSE_BOUNDS = ['0.01', '0.02', '0.1', '0.2'] as const;
export type PauseBound = (typeof PAUSE_BOUNDS)[number];

const GC_LINE = /^nodejs_gc_duration_seconds_(bucket|sum|count)\{(?:le="([^"]+)",)?kind="(major|minor)"\} \S+$/;

export async function gcTotalsOf(role: ServiceProcess<EnvoyRoleReady>): Promise<GcTotals> {
  const totals: GcTotals = { majors: 0, majorSeconds: 0, minors: 0, minorSeconds: 0, over: { major: {}, minor: {} }, residentBytes: 0 };
  const within: Record<GcKind, Partial<Record<PauseBound, number>>> = { major: {}, minor: {} };
  for (const line of await exposedLines(role)) {
    if (line.startsWith('process_resident_memory_bytes ')) totals.residentBytes = sampleValue(line);
    const match = GC_LINE.exec(line);
    if (!match) continue;
    const [, series, le, kind] = match as unknown as [string, string, string | undefined, GcKind];
    const number = sampleValue(line);
    if (series === 'count') totals[kind === 'major' ? 'majors' : 'minors'] = number;
    else if (series === 'sum') totals[kind === 'major' ? 'majorSeconds' : 'minorSeconds'] = number;
    else if ((PAUSE_BOUNDS as readonly string[]).includes(le!)) within[kind][le as PauseBound] = number;
  }
  for (const kind of ['major', 'minor'] as const) {
    const count = kind === 'major' ? totals.majors : totals.minors;
    for (const bound of PAUSE_BOUNDS) {
      // No pause of this kind yet: prom-client writes none of its lines, and none was over any bound.
      const under = count === 0 ? 0 : within[kind][bound];
      if (under !== undefined) totals.over[kind][bound] = count - under;
    }
  }
  return totals;
}

/** What happened between two readings of the same role (the resident memory: at the second). */
export function gcBetween(before: GcTotals, after: GcTotals): GcTotals {
  const over = { major: {}, minor: {} } as GcTotals['over'];
  for (const kind of ['major', 'minor'] as const) {
    for (const bound of PAUSE_BOUNDS) {
      const [then, now] = [before.over[kind][bound], after.over[kind][bound]];
      if (then !== undefined && now !== undefined) over[kind][bound] = now - then;
    }
  }
  return {
    residentBytes: after.residentBytes,
    majors: after.majors - before.majors,
    majorSeconds: after.majorSeconds - before.majorSeconds,
    minors: after.minors - before.minors,
    minorSeconds: after.minorSeconds - before.minorSeconds,
    over,
  };
}
