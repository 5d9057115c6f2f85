import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet } from './index.js';
import type { RunningSimnet } from './index.js';

let simnet: RunningSimnet;

beforeAll(async () => {
  simnet = await startSimnet({ seed: 'lifecycle' });
});

afterAll(async () => {
  await simnet.stop();
});

describe('simnet lifecycle', () => {
  it('serves GraphQL and the faucet on the HTTP port', async () => {
    const response = await fetch(simnet.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ chainIdentifier }' }) });
    expect(((await response.json()) as { data: { chainIdentifier: string } }).data.chainIdentifier).toBe(simnet.chainId);
    const recipient = simnet.accounts.find((account) => account.label === 'grace')!.address;
    const result = await requestSuiFromFaucetV2({ host: simnet.faucetUrl, recipient });
    expect(result.status).toBe('Success');
  });

  it('starts on ephemeral ports, side by side', async () => {
    const other = await startSimnet({ seed: 'lifecycle', autoStart: false });
    try {
      expect(other.grpcUrl).not.toBe(simnet.grpcUrl);
      expect(other.chainId).toBe(simnet.chainId);
    } finally {
      await other.stop();
    }
  });

  it('stops with open streams on both transports and leaves nothing keeping the process alive', async () => {
    const script = fileURLToPath(new URL('./fixtures/start-stop.ts', import.meta.url));
    const runner = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
    const child = spawn(process.execPath, [runner, script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code, output).toBe(0);
    const { received } = JSON.parse(output.trim().split('\n').pop()!) as { received: number[] };
    expect(received.every((count) => count > 0)).toBe(true);
  });
});
