/**
 * The webhook attacker of bench/noisy-neighbour.ts, a process of its own: an organization on
 * NOISY_TIER (default growth: 20 webhooks) that creates webhooks on the gateway until the plan
 * says no (403 WEBHOOK_LIMIT_REACHED, counted), every one a `coin` webhook on SUI (so each of
 * simnet's transactions is a delivery for each of them) pointing at its own receiver that accepts
 * the connection and never answers (bench/lib/silent-receiver.ts): the attack on the
 * shared delivery slots. Each attempt then holds a slot until the per-attempt timeout
 * (SUIGW_WEBHOOK_TIMEOUT_MS, 10 s shipped).
 *
 * `node bin/run-ts.js bench/lib/noisy-webhooks.ts` with GATEWAY_URL and DATABASE_URL. SIGUSR1
 * creates the webhooks; SIGUSR2 deletes them (their pending deliveries go with them) and drops
 * the held requests, so "alone" has no attacker backlog. Protocol: bench/lib/attacker-process.ts.
 */
import { COIN_TYPES } from '../../services/simnet/index.js';
import { createAttackerOrganization, Refusals, serveAttacker, type AttackerReport } from './attacker-process.js';
import { exitWithParent } from './service-process.js';
import { startSilentReceiver } from './silent-receiver.js';

exitWithParent();

const gatewayUrl = process.env['GATEWAY_URL']!;
const attacker = await createAttackerOrganization(['manage']);
const receiver = await startSilentReceiver();
const refusals = new Refusals();
let webhookIds: string[] = [];
let requests = 0;
let receivedAtStart = 0;

const headers = { 'content-type': 'application/json', 'x-api-key': attacker.apiKey };

async function createWebhooks(): Promise<void> {
  for (let i = 0; i < 10_000; i += 1) {
    requests += 1;
    const response = await fetch(`${gatewayUrl}/v1/webhooks`, {
      method: 'POST', headers, body: JSON.stringify({ url: `${receiver.url}/hook-${i}`, type: 'coin', filters: { coinTypes: [COIN_TYPES.SUI] } }),
    });
    const body = (await response.json()) as { data?: { id: string }; code?: string };
    if (response.status === 201 && body.data) {
      webhookIds.push(body.data.id);
      continue;
    }
    refusals.add(`${response.status} ${body.code ?? ''}`.trim());
    if (body.code === 'WEBHOOK_LIMIT_REACHED') return;
    if (i > 5 && webhookIds.length === 0) throw new Error(`webhook creation refused: ${response.status} ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

serveAttacker('noisy-webhooks', { organizationId: attacker.organizationId, tier: attacker.tier }, {
  async start(): Promise<AttackerReport> {
    requests = 0;
    receivedAtStart = receiver.received();
    await createWebhooks();
    return { held: webhookIds.length, requests, refusals: { ...refusals.counts }, note: `${webhookIds.length} webhooks → a receiver that never answers` };
  },
  async stop(): Promise<AttackerReport> {
    const note = `receiver got ${receiver.received() - receivedAtStart} attempts, held ${receiver.open()} open at the end`;
    for (const id of webhookIds) {
      requests += 1;
      const response = await fetch(`${gatewayUrl}/v1/webhooks/${id}`, { method: 'DELETE', headers: { 'x-api-key': attacker.apiKey } });
      if (response.status !== 200) refusals.add(`delete ${response.status}`);
    }
    webhookIds = [];
    receiver.release();
    return { held: 0, requests, refusals: refusals.take(), note };
  },
});

process.once('exit', () => receiver.release());
