import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface ReadyOutput {
  /** What `ready` captured (its first group, else the whole match); rejects if the child ends first. */
  ready: Promise<string>;
  /** Everything the child wrote so far, stdout and stderr interleaved. */
  output(): string;
}

/** Watches a starting child's output for the line that says it serves (a log line, a banner). */
export function watchUntilReady(child: ChildProcessByStdio<null, Readable, Readable>, exited: Promise<unknown>, ready: RegExp, name: string): ReadyOutput {
  let output = '';
  const captured = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve(match[1] ?? match[0]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`${name} exited (${String(code)}) before it was ready:\n${output}`)));
  });
  return { ready: captured, output: () => output };
}

/** A child that runs to its end (migrate, admin, --help): its exit code and what it wrote. */
export async function outputUntilExit(child: ChildProcessByStdio<null, Readable, Readable>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}
