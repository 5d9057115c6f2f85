import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../identity/index.js';
import { KEY_RECHECK_MS } from '../../pipeline/index.js';
import { call } from '../../../test/support/management-calls.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

const DAY_MS = 86_400_000;
const SUBSCRIBE_CHECKPOINTS = '/sui.rpc.v2.SubscriptionService/SubscribeCheckpoints';

interface UsageRoute { network: string; route: string; requests: number; credits: number }

/**
 * An open stream is not a pass. Before, the proxy checked the key once per call: a key disabled
 * (DELETE /v1/keys/{id}), expired or re-scoped kept its open SubscribeCheckpoints streaming, and
 * charged. Now the key is checked again every KEY_RECHECK_MS on the proxy's clock and a refusal
 * ends the call with the error table's status, after the messages already paid for; the call is
 * settled as any stream's end is (1 credit per message delivered).
 */
describe('gRPC proxy: the key checked again while a stream is open', () => {
  let e2e: GrpcProxyE2E;
  beforeAll(async () => {
    e2e = await startGrpcProxyE2E();
  });
  afterAll(async () => e2e.stop());

  async function newKey(scopes: ('data' | 'manage')[], expiresInDays = 30) {
    const { gateway } = e2e;
    return createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, {
      organizationId: gateway.organizationId, projectId: gateway.projects.mainnet, name: 'streamer', scopes, expiresInDays,
    });
  }

  async function subscriptionCredits(): Promise<UsageRoute | undefined> {
    const usage = await call(e2e.gateway, 'GET', '/v1/usage', { key: e2e.gateway.adminKey });
    expect(usage.status).toBe(200);
    return (usage.body.data as { routes: UsageRoute[] }).routes.find((route) => route.route === `gRPC ${SUBSCRIBE_CHECKPOINTS}`);
  }

  /** Streams checkpoints with `apiKey`; after the first message `change` runs; resolves with the messages received and the error that ended the stream. */
  async function streamUntilEnded(apiKey: string, change: () => Promise<void>): Promise<{ received: number; error: unknown }> {
    const stream = e2e.native(apiKey).subscriptionService.subscribeCheckpoints({ readMask: { paths: ['sequence_number'] } });
    let received = 0;
    try {
      for await (const _ of stream.responses) {
        received += 1;
        if (received === 1) await change();
      }
    } catch (error) {
      return { received, error };
    }
    throw new Error('the stream ended without an error');
  }

  it('a key disabled: at the next check the stream ends UNAUTHENTICATED, the messages delivered charged', async () => {
    const key = await newKey(['data']);
    const before = (await subscriptionCredits()) ?? { requests: 0, credits: 0 };
    const { received, error } = await streamUntilEnded(key.apiKey, async () => {
      expect((await call(e2e.gateway, 'DELETE', `/v1/keys/${key.id}`, { key: e2e.gateway.adminKey })).status).toBe(200);
      e2e.gateway.clock.advance(KEY_RECHECK_MS);
    });
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', message: 'This API key has been disabled.' });
    await expect.poll(subscriptionCredits, { timeout: 10_000 }).toEqual({
      network: 'mainnet', route: `gRPC ${SUBSCRIBE_CHECKPOINTS}`, requests: before.requests + 1, credits: before.credits + received,
    });
  });

  it('the data scope removed: at the next check the stream ends PERMISSION_DENIED INSUFFICIENT_SCOPE', async () => {
    const key = await newKey(['data', 'manage']);
    const { error } = await streamUntilEnded(key.apiKey, async () => {
      expect((await call(e2e.gateway, 'PATCH', `/v1/keys/${key.id}`, { key: key.apiKey, body: { scopes: ['manage'] } })).status).toBe(200);
      e2e.gateway.clock.advance(KEY_RECHECK_MS);
    });
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', message: "INSUFFICIENT_SCOPE: This operation needs the 'data' scope." });
  });

  it('a key that expires while streaming: at the next check the stream ends UNAUTHENTICATED', async () => {
    const key = await newKey(['data'], 1);
    const { error } = await streamUntilEnded(key.apiKey, async () => {
      e2e.gateway.clock.advance(DAY_MS);
    });
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', message: `API_KEY_EXPIRED: This API key expired at ${key.expiresAt}.` });
  });
});
