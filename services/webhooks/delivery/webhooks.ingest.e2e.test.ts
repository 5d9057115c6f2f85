import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { ManualClock, createLogger, loadConfig } from '../../core/index.js';
import { createOrganization } from '../../identity/index.js';
import { COIN_TYPES, startSimnet, type RunningSimnet } from '../../simnet/index.js';
import { CheckpointIngest } from '../../streams/ingest/checkpoint-ingest.js';
import { createStream } from '../../streams/definitions/store.js';
import { MemoryStreamLog } from '../../streams/log/stream-log.memory.js';
import { SuiUpstream, defaultUpstreamPolicy } from '../../upstream/index.js';
import { createWebhook, webhooksDb } from '../definitions/store.js';
import { openPipeline, type OpenedPipeline } from '../../pipeline/index.js';
import { createWebhookRuntime, webhookSecretBox, type WebhookRuntime } from '../webhook-runtime.js';

/**
 * Webhooks ride on the streams' ingest: simnet's real SubscribeCheckpoints is matched once, a
 * stream and a webhook with the same type and filters get the same events, the webhook's as
 * signed `{type, timestamp, data}` POSTs.
 */
describe('webhooks fed by the checkpoint ingest (simnet)', () => {
  const clock = new ManualClock(Date.now());
  const secret = randomBytes(32).toString('hex');
  let simnet: RunningSimnet;
  let db: TestDatabase;
  let upstream: SuiUpstream;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let runtime: WebhookRuntime;
  let pipeline: OpenedPipeline;
  const log = new MemoryStreamLog(clock);

  beforeAll(async () => {
    simnet = await startSimnet({ seed: 'webhooks-ingest', autoStart: false, transactionsPerCheckpoint: 8 });
    db = await createTestDatabase();
    upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl }, policy: defaultUpstreamPolicy });
    receiver = await startWebhookReceiver();
    const config = loadConfig({ LOG_LEVEL: 'silent', SUIGW_WEBHOOK_ALLOW_HTTP: 'true', SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1' });
    pipeline = await openPipeline({ config, database: db.database, clock, logger: createLogger('silent') });
    runtime = createWebhookRuntime({ config, secret, database: db.database, clock, logger: createLogger('silent'), pipeline: pipeline.pipeline, start: false });
  });
  afterAll(async () => {
    await runtime.close();
    await pipeline.close();
    await receiver.close();
    await upstream.close();
    await simnet.stop();
    await db.drop();
  });

  it('a stream and a webhook with the same filters receive the same events; the webhook’s verify', async () => {
    const { organization } = await createOrganization(db.database.db, clock, { name: 'o', tier: 'enterprise', projects: [{ name: 'p', network: 'mainnet' }] });
    const owner = { organizationId: organization.id, network: 'mainnet' as const, limit: 10 };
    const filter = { type: 'coin' as const, filters: { coinTypes: [COIN_TYPES.USDC] } };
    const { stream } = await createStream(db.database, clock, { ...owner, ...filter, name: 'usdc' });
    const { webhook, secret: signing } = await createWebhook(db.database, clock, webhookSecretBox(secret), { ...owner, ...filter, url: `${receiver.url}/usdc` });

    const seen: bigint[] = [];
    const ingest = new CheckpointIngest({
      network: 'mainnet', upstream, database: db.database, log, clock, logger: createLogger('silent'),
      consumers: [runtime.consumer], onCheckpoint: (sequence) => seen.push(sequence),
    });
    await ingest.start();
    // The subscription starts at the tip: produce until the ingest sees a checkpoint, then three more.
    await expect.poll(async () => {
      await simnet.produceCheckpoint();
      return seen.length;
    }, { timeout: 10_000 }).toBeGreaterThan(0);
    // Checkpoints produced by the poll may still be on their way: wait until the ingest is at the
    // ledger's tip, not at what it had seen when the poll ended.
    for (let i = 0; i < 3; i += 1) await simnet.produceCheckpoint();
    const last = BigInt((await upstream.grpc.ledgerService.getServiceInfo({})).response.checkpointHeight!);
    await expect.poll(() => seen.at(-1), { timeout: 10_000 }).toBe(last);
    await ingest.stop();

    const streamed: unknown[] = [];
    for (let page = await log.readNew(stream.id, 500); page.length > 0; page = await log.readNew(stream.id, 500)) streamed.push(...page.map((entry) => entry.data));
    expect(streamed.length).toBeGreaterThan(0);

    // One pass attempts every match (webhooks.pass.e2e.test.ts: even when a claim waits).
    expect(await runtime.dispatcher.runDue()).toBe(streamed.length);
    const delivered = receiver.received.map((request) => {
      const headers = { 'webhook-id': String(request.headers['webhook-id']), 'webhook-timestamp': String(request.headers['webhook-timestamp']), 'webhook-signature': String(request.headers['webhook-signature']) };
      return new StandardWebhook(signing).verify(request.body, headers) as { type: string; timestamp: string; data: { timestampMs: number } };
    });
    expect(delivered.every((payload) => payload.type === 'coin' && payload.timestamp === new Date(payload.data.timestampMs).toISOString())).toBe(true);
    const key = (data: unknown) => JSON.stringify(data);
    expect(delivered.map((payload) => key(payload.data)).sort()).toEqual(streamed.map(key).sort());
    expect(receiver.received.every((request) => request.path === '/usdc')).toBe(true);
    expect(webhook.id).toMatch(/^wh_/);
    // Each delivery names the chain of its checkpoint, as the stream log's guard does (a wiped network).
    const chains = await webhooksDb(db.database).selectFrom('webhook_deliveries').select('chain').distinct().where('webhook_id', '=', webhook.id).execute();
    expect(chains).toEqual([{ chain: simnet.ledger.chainId }]);
  });
});
