import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { outputUntilExit, watchUntilReady } from '../../support/child-output.js';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '..', '..', '..');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** What `make image` builds: the chart's default image (charts/suigw/values.yaml, appVersion). */
export const IMAGE = `ghcr.io/suigw/suigw:${VERSION}`;

/**
 * The pod's security context of the chart (values.yaml podSecurityContext/securityContext) as
 * podman flags: uid 10001, a read-only root file system with a writable /tmp, no capabilities.
 * Host network: the roles reach this machine's PostgreSQL, Redis and each other on 127.0.0.1.
 */
const RUN_FLAGS = ['--rm', '--network=host', '--user', '10001:10001', '--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'];

async function script(name: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(join(REPO, 'scripts', name), [], { cwd: REPO, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, SUIGW_IMAGE: IMAGE } });
    return stdout + stderr;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`scripts/${name} failed:\n${stdout}${stderr}`, { cause: error });
  }
}

/**
 * Podman installed and configured (scripts/ensure-podman.sh), then `make image`'s script. A
 * machine where podman cannot be installed fails here with the script's reason: nothing skips.
 */
export async function buildImage(): Promise<string> {
  await script('ensure-podman.sh');
  return script('build-image.sh');
}

export async function podman(args: string[]): Promise<string> {
  return (await run('podman', args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
}

export interface Container {
  /** What `ready` captured from the output (its first group, else the whole match). */
  ready: string;
  output(): string;
  /** Sends SIGTERM to the container's main process (node) and resolves with its exit code. */
  terminate(): Promise<number | null>;
  /** Removes the container whatever its state (clean-up after a failure). */
  remove(): Promise<void>;
}

function envFlags(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
}

/** `<IMAGE> role args…` in a container, resolved once its output matches `ready`. */
export async function startContainer(role: string, args: string[], env: Record<string, string>, ready: RegExp, podmanFlags: string[] = []): Promise<Container> {
  const name = `suigw-image-test-${role}-${randomBytes(4).toString('hex')}`;
  const child = spawn('podman', ['run', ...RUN_FLAGS, ...podmanFlags, '--name', name, ...envFlags({ LOG_LEVEL: 'info', ...env }), IMAGE, role, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  // `podman run` ends with the container and passes its exit code on.
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const watched = watchUntilReady(child, exited, ready, `${IMAGE} ${role}`);
  return {
    ready: await watched.ready,
    output: watched.output,
    async terminate() {
      if (child.exitCode === null) await podman(['kill', '--signal', 'TERM', name]).catch(() => undefined);
      return exited;
    },
    async remove() {
      await podman(['rm', '--force', '--ignore', name]).catch(() => undefined);
    },
  };
}

/** `<IMAGE> role args…` to its end. */
export async function runContainer(role: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('podman', ['run', ...RUN_FLAGS, ...envFlags({ LOG_LEVEL: 'warn', ...env }), IMAGE, role, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return outputUntilExit(child);
}
