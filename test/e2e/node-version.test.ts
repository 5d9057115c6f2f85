import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CHECK = join(ROOT, 'scripts', 'check-node.sh');

describe('make dev / make test check the Node.js version first', () => {
  let fakeBin: string;
  beforeAll(async () => {
    fakeBin = await mkdtemp(join(tmpdir(), 'suigw-node-'));
  });
  afterAll(async () => rm(fakeBin, { recursive: true, force: true }));

  /** Runs the check with a `node` on PATH that claims `version`. */
  async function checkWith(version: string) {
    await writeFile(join(fakeBin, 'node'), `#!/bin/sh\necho ${version}\n`);
    await chmod(join(fakeBin, 'node'), 0o755);
    return spawnSync('bash', [CHECK], { env: { PATH: `${fakeBin}:/usr/bin:/bin` }, encoding: 'utf8' });
  }

  it.each(['18.20.4', '20.11.1', '19.9.0'])('Node %s is refused with a clear message', async (version) => {
    const result = await checkWith(version);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Node.js ${version} is too old: suigw needs Node.js 20.19 or newer (20 LTS or 22+).`);
  });

  it.each(['20.19.0', '20.20.2', '22.12.0', '24.1.0'])('Node %s passes', async (version) => {
    const result = await checkWith(version);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('the Makefile runs the check before installing, in dev and test', async () => {
    const makefile = await readFile(join(ROOT, 'Makefile'), 'utf8');
    expect(makefile).toMatch(/^dev: node-version /m);
    expect(makefile).toMatch(/^test: node-version /m);
    expect(makefile).toMatch(/^\$\(NPM_INSTALL_STAMP\):.*\| node-version$/m);
  });

  it('package.json engines say the same minimum the check enforces, and this Node meets it', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=20.19');
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    expect(major > 20 || (major === 20 && minor >= 19)).toBe(true);
  });
});
