import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: scripts are named from there, whatever the caller's directory. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Checkouts whose subjects this benchmark run has compiled already. */
const built = new Set<string>();

/**
 * The compiled subjects of a checkout, as production runs them (tsc, then plain node: no tsx
 * transform at load time, none of its per-closure `__name` calls at run time): built once per
 * benchmark run into `.bench-build/` (tsconfig.bench.json, incremental). Undefined, so the
 * subjects run from source through tsx, with BENCH_FROM_SOURCE=1 or for a checkout without
 * tsconfig.bench.json (an A/B run's older version).
 */
export function benchBuild(root = ROOT): string | undefined {
  if (process.env['BENCH_FROM_SOURCE'] === '1' || !existsSync(join(root, 'tsconfig.bench.json'))) return undefined;
  if (!built.has(root)) {
    console.log(`compiling the benchmark subjects of ${root} (tsc -p tsconfig.bench.json → .bench-build/)…`);
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.bench.json'], { cwd: root, stdio: 'inherit' });
    execFileSync(process.execPath, ['scripts/copy-build-assets.js', '.bench-build'], { cwd: root, stdio: 'ignore' });
    built.add(root);
  }
  return join(root, '.bench-build');
}

/** node's arguments that run a TypeScript entry file of a checkout (its path from the root): compiled, or through tsx. */
export function entryArguments(script: string, root = ROOT): string[] {
  const build = benchBuild(root);
  return build ? [join(build, script.replace(/\.ts$/, '.js'))] : [join(root, 'bin', 'run-ts.js'), join(root, script)];
}

/**
 * A server of a benchmark (simnet, the gateway, the bare baseline) in a Node process of its
 * own, so that the load generator and the other servers do not share its event loop or CPU
 * accounting. The child announces itself with one IPC message `{ ready: … }` (see
 * `exitWithParent` and `serveUntilStopped`); its stdout goes where the caller says (the
 * gateway's log stream goes to a file, as a container runtime would keep it).
 */
export interface ServiceProcess<Ready> {
  readonly name: string;
  readonly pid: number;
  /** What the child announced (its URL, ports, …). */
  readonly ready: Ready;
  /** User + system CPU time of the whole process (all threads) so far, in microseconds. */
  cpuMicros(): number;
  /** Every IPC message the child sends after it was ready (e.g. simnet's seal times). */
  onMessage(listener: (message: unknown) => void): void;
  /** Sends a signal and resolves with the next IPC message the child sends. */
  signalForReply<Reply>(signal: NodeJS.Signals, timeoutMs?: number): Promise<Reply>;
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  name: string;
  /** A TypeScript entry file relative to the repository root, run compiled or through tsx (entryArguments). */
  script: string;
  /** The checkout to run it from (an A/B run's other version); this repository by default. */
  root?: string;
  env: NodeJS.ProcessEnv;
  /** Flags for node itself, e.g. `--expose-gc`. */
  nodeFlags?: string[];
  /** A file descriptor for the child's stdout, or 'ignore'. */
  stdout: number | 'ignore';
  /** How long the child may take to announce itself. */
  startTimeoutMs?: number;
}

const exitAtOnce = () => process.exit(1);

/**
 * The child's side, first thing in its module: while it starts, losing the parent (a crashed or
 * killed benchmark) ends it at once, so no half-started server is left behind.
 */
export function exitWithParent(): void {
  if (!process.send) return;
  if (!process.connected) process.exit(1);
  process.once('disconnect', exitAtOnce);
}

/**
 * The child's side once it serves: tells the parent it is ready (or prints it when run by
 * hand), then runs `stop` once on SIGTERM, SIGINT or when the parent goes away, and exits.
 */
export function serveUntilStopped(ready: unknown, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  if (process.send) {
    process.off('disconnect', exitAtOnce);
    if (!process.connected) shutdown();
    process.once('disconnect', shutdown);
    process.send({ ready });
  } else {
    console.log(JSON.stringify(ready));
  }
}

let ticksPerSecond: number | undefined;

/** `getconf CLK_TCK`: the unit of utime/stime in /proc (100 on every Linux we run). */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of a process from /proc/PID/stat (fields 14 and 15), in microseconds. */
export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces and parentheses: count from its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / clockTicksPerSecond();
}

/** The CPU reader of a running child; it throws once the child is gone, so no run it did not serve is priced. */
export function cpuOf(child: ChildProcess, name: string): () => number {
  return () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) during the run`);
    return processCpuMicros(child.pid!);
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export async function startServiceProcess<Ready>(options: ServiceProcessOptions): Promise<ServiceProcess<Ready>> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...entryArguments(options.script, options.root ?? ROOT)], {
    cwd: options.root ?? ROOT,
    env: options.env,
    stdio: ['ignore', options.stdout, 'inherit', 'ipc'],
  });
  let ready: Ready;
  try {
    ready = await new Promise<Ready>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${options.name} did not start within ${options.startTimeoutMs ?? 60_000} ms`)), options.startTimeoutMs ?? 60_000);
      child.once('message', (message: { ready?: Ready }) => {
        clearTimeout(timer);
        if (message.ready === undefined) reject(new Error(`${options.name} sent ${JSON.stringify(message)} before it was ready`));
        else resolve(message.ready);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${options.name} exited (${code ?? signal}) before it was ready`));
      });
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    name: options.name,
    pid: child.pid!,
    ready,
    cpuMicros: cpuOf(child, options.name),
    onMessage: (listener) => {
      child.on('message', listener);
    },
    signalForReply: <Reply>(signal: NodeJS.Signals, timeoutMs = 30_000) =>
      new Promise<Reply>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${options.name} did not answer ${signal}`)), timeoutMs);
        child.once('message', (message: Reply) => {
          clearTimeout(timer);
          resolve(message);
        });
        child.kill(signal);
      }),
    stop: () => stopChild(child),
  };
}

/**
 * A program that is not ours (nghttpd, …) as a ServiceProcess: spawned with its output ignored,
 * ready once `port` on 127.0.0.1 accepts a connection. It sends no IPC messages.
 */
export async function startNativeProcess(options: { name: string; command: string; args: string[]; port: number; startTimeoutMs?: number }): Promise<ServiceProcess<{ url: string }>> {
  const child = spawn(options.command, options.args, { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`${options.name} exited (${code ?? signal}) before it was ready`)));
  });
  failed.catch(() => undefined);
  const deadline = Date.now() + (options.startTimeoutMs ?? 10_000);
  const listening = async () => {
    while (!(await Promise.race([accepts(options.port), failed]))) {
      if (Date.now() > deadline) throw new Error(`${options.name} did not listen on ${options.port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await listening().catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return {
    name: options.name,
    pid: child.pid!,
    ready: { url: `http://127.0.0.1:${options.port}` },
    cpuMicros: cpuOf(child, options.name),
    onMessage: () => undefined,
    signalForReply: () => Promise.reject(new Error(`${options.name} sends no messages`)),
    stop: () => stopChild(child),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port free on 127.0.0.1 now (for a program that cannot be told to pick one itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
