import { spawn } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'suigw.js');

/** Each run starts a Node process that loads the TypeScript CLI: seconds on a busy machine. */
export const CLI_TIMEOUT_MS = 90_000;
/** A stack trace's frames, as Node prints them for an uncaught error. */
export const STACK_FRAME = /^\s+at .+\(?.+:\d+:\d+\)?$/m;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `suigw ARGS…` to its end (log silenced unless `env` says otherwise). */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
