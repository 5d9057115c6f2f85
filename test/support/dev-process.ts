import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DevState } from '../../services/cli/dev.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The file's JSON once it is whole (it may be seen empty while `suigw dev` writes it) and written
 * by this start: a kept data directory still holds the last run's until the new one replaces it.
 */
async function waitForJson<T>(path: string, child: ChildProcess, timeoutMs: number, previous: string | undefined): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const text = await readFile(path, 'utf8');
      if (text === previous) throw new Error('the last run\'s state');
      return JSON.parse(text) as T;
    } catch {
      if (child.exitCode !== null) throw new Error(`suigw dev exited (${child.exitCode}) before writing ${path}`);
      if (Date.now() > until) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export interface DevProcess {
  state: DevState;
  /** Its SUIGW_DATA_DIR: what `.suigw/` is to the README's commands. */
  dataDir: string;
  /** Runs `curl -s ARGS` as the README's examples do; the body and the status. */
  curl(args: string[]): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

/**
 * `suigw dev` as `make dev` starts it (`node bin/suigw.js dev`, after make's install check), with
 * its shipped settings except where several test files must not collide: its own data directory
 * and ports picked by the system (`PORT=0`), and no upstream URLs from the environment
 * (`env` may set some: a test's own upstream for a network).
 */
export async function startDev(options: { env?: Record<string, string>; dataDir?: string } = {}): Promise<DevProcess> {
  // A data directory the caller gives is the caller's: kept when the process stops (a restart reuses it).
  const owned = options.dataDir === undefined;
  const dir = options.dataDir ?? await mkdtemp(join(tmpdir(), 'suigw-journey-'));
  const env: Record<string, string | undefined> = { ...process.env, SUIGW_DATA_DIR: dir, PORT: '0', SUIGW_METRICS_PORT: '0', SUIGW_GRPC_PORT: '0', LOG_LEVEL: 'warn' };
  for (const key of Object.keys(env)) if (/^(DATABASE_URL|REDIS_URL|SUI_(MAINNET|TESTNET|DEVNET)_)/.test(key)) delete env[key];
  Object.assign(env, options.env);
  const previous = owned ? undefined : await readFile(join(dir, 'dev.json'), 'utf8').catch(() => undefined);
  const child = spawn(process.execPath, ['bin/suigw.js', 'dev'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  let state: DevState;
  try {
    // Generous: a first start migrates the embedded database and seeds simnet, slow on a busy machine.
    state = await waitForJson<DevState>(join(dir, 'dev.json'), child, 150_000, previous);
  } catch (error) {
    // Never leave the process behind: the caller has nothing to stop.
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    if (owned) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const run = promisify(execFile);
  return {
    state,
    dataDir: dir,
    async curl(args) {
      const { stdout } = await run('curl', ['-s', '-w', '\n%{http_code}', ...args]);
      const cut = stdout.lastIndexOf('\n');
      const text = stdout.slice(0, cut);
      return { status: Number(stdout.slice(cut + 1)), body: text === '' ? undefined : JSON.parse(text) };
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      if (owned) await rm(dir, { recursive: true, force: true });
    },
  };
}
