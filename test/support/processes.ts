import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'suigw.js');

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

export interface OwnedProcess {
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** Sends the signal (unless already ended) and waits for the end. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

function own(child: ChildProcess): OwnedProcess {
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * A private redis-server on its own port (no persistence): for tests that stop Redis, which
 * must never touch the machine's shared Redis.
 */
export async function startRedis(): Promise<OwnedProcess & { url: string }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { retryStrategy: (attempt) => (attempt > 50 ? null : 100), maxRetriesPerRequest: 50 });
  // Refused connections until redis-server listens are expected; ping() waits through them.
  probe.on('error', () => {});
  try {
    await probe.ping();
  } finally {
    probe.disconnect();
  }
  return { ...own(child), url };
}

/**
 * `suigw gateway` in a process of its own (the real entry point, with its SIGTERM handling) on
 * a free port; resolves once it is listening.
 */
/** The secret every gateway process of the tests runs with (`suigw gateway` requires one). */
export const TEST_SECRET = 'test-secret-0123456789abcdef0123456789abcdef';

export async function startGatewayProcess(env: Record<string, string>): Promise<OwnedProcess & { url: string; log: () => string }> {
  const child = spawn(process.execPath, [BIN, 'gateway'], {
    // Gateway processes of one test share one secret, as replicas do.
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', SUIGW_METRICS_PORT: '0', HOST: '127.0.0.1', SUIGW_SECRET: TEST_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const owned = own(child);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = output.split('\n').map((line) => {
        try {
          return JSON.parse(line) as { msg?: string; address?: string };
        } catch {
          return {};
        }
      }).find((line) => line.msg === 'gateway listening');
      if (listening?.address) resolve(listening.address);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void owned.exited.then((code) => reject(new Error(`gateway exited (${code}) before listening:\n${output}`)));
  });
  return { ...owned, url, log: () => output };
}
