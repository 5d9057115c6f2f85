import { spawn } from 'node:child_process';
import { join } from 'node:path';

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
  let output = '';
  const captured = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve(match[1] ?? match[0]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`suigw ${role} exited (${child.exitCode}) before it was ready:\n${output}`)));
  });
  return {
    ready: captured,
    pid: child.pid!,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs `suigw ROLE ARGS…` to its end. */
export async function runRole(role: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, role, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}
