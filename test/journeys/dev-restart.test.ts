import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, describe, expect, it } from 'vitest';
import { startDev, type DevProcess } from '../support/dev-process.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { openAddressSocket } from './support/sdk-flows.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field

/**
 * Journey: `make dev` stopped and started again on the same `.suigw/` (README: "Restarting reuses
 * the same organization and key"). Each run's simnet starts from genesis, so it is another chain:
 * a Warp stream and a webhook made in the first run receive the second run's activity at once,
 * rather than once the new simnet's checkpoint numbers pass the old run's.
 */
describe('journey: make dev restarted on a kept .suigw/', () => {
  const running: DevProcess[] = [];
  let dataDir: string | undefined;
  afterAll(async () => {
    for (const dev of running) await dev.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const call = async (dev: DevProcess, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${dev.state.networks['mainnet']!.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': dev.state.adminKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() as Body };
  };
  const chainIdentifier = async (dev: DevProcess) => (await call(dev, 'POST', '/v1/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier', params: [] })).body.result as string;

  it('is another chain, and what the first run made follows it at once', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'suigw-restart-'));
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const receiver = await startWebhookReceiver();
    try {
      const first = await startDev({ dataDir });
      running.push(first);
      const before = await chainIdentifier(first);
      const [stream, hook] = await Promise.all([
        call(first, 'POST', '/v1/streams', { name: 'kept', type: 'address', filters: { addresses: [recipient] } }),
        call(first, 'POST', '/v1/webhooks', { url: `${receiver.url}/kept`, type: 'address', filters: { addresses: [recipient] } }),
      ]);
      expect([stream.status, hook.status]).toEqual([201, 201]);
      await first.stop();
      running.pop();

      const second = await startDev({ dataDir });
      running.push(second);
      expect(second.state.adminKey).toBe(first.state.adminKey);
      expect(await chainIdentifier(second)).not.toBe(before);
      const socket = await openAddressSocket(`${second.state.networks['mainnet']!.wsBaseUrl}/v1/warp/${stream.body.data.id}/ws?mode=resume`, second.state.adminKey);
      try {
        await requestSuiFromFaucetV2({ host: second.state.simnet!.faucetUrl, recipient });
        await expect.poll(() => socket.digests.length, { timeout: 60_000 }).toBeGreaterThan(0);
        await expect.poll(() => receiver.received.length, { timeout: 60_000 }).toBeGreaterThan(0);
        expect(new Set(receiver.received.map((delivery) => delivery.path))).toEqual(new Set(['/kept']));
        expect(JSON.parse(receiver.received[0]!.body).data.digest).toBe(socket.digests[0]);
      } finally {
        socket.close();
      }
    } finally {
      await receiver.close();
    }
  }, 420_000);
});
