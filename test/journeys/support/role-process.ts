import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { outputUntilExit, watchUntilReady } from '../../support/child-output.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'suigw.js');

export interface RoleProcess {
  /** What `ready` captured from the process's output (its first group). */
  ready: string;
  pid: number;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `suigw ROLE ARGS…` as an operator starts it (bin/suigw.js, environment only), resolved once
 * its output matches `ready` (a log line or a banner that says it listens).
 */
export async function startRole(role: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<RoleProcess> {
  const child = spawn(process.execPath, [BIN, role, ...args], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const watched = watchUntilReady(child, exited, ready, `suigw ${role}`);
  return {
    ready: await watched.ready,
    pid: child.pid!,
    exited,
    output: watched.output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs `suigw ROLE ARGS…` to its end. */
export async function runRole(role: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, role, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return outputUntilExit(child);
}
