import { spawn, type ChildProcess } from 'node:child_process';
import { entryArguments } from './service-process.js';

/** A running `suigw streams` (bench/warp-lag.ts, the noisy-neighbour stack). */
export interface StreamsRole {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, as it logged it. */
  address: string;
  /** Bytes it logged (production logging stays on). */
  loggedBytes: () => number;
  stop(): Promise<void>;
}

/**
 * `suigw streams` itself (its SIGTERM handling, its production logger: Warp delivery and webhook
 * delivery); resolves once it listens. Its log is counted, not kept, once it started.
 */
export function startStreamsRole(env: NodeJS.ProcessEnv, nodeFlags: string[] = []): Promise<StreamsRole> {
  const child = spawn(process.execPath, [...nodeFlags, ...entryArguments('services/cli/suigw.ts'), 'streams'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let bytes = 0;
  let ready = false;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (ready) return;
      output += chunk.toString();
      const match = /"address":"(http:\/\/[^"]+)".*"msg":"streams listening"/.exec(output);
      if (!match) return;
      ready = true;
      output = '';
      resolve({ child, address: match[1]!, loggedBytes: () => bytes, stop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (ready ? process.stderr.write(chunk) : (output += chunk.toString())));
    child.once('exit', (code) => {
      if (!ready) reject(new Error(`streams exited (${code}):\n${output}`));
    });
  });
}
