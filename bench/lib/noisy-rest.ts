/**
 * The REST attacker of bench/noisy-neighbour.ts, a process of its own: an organization on
 * NOISY_TIER (default growth) sending its heaviest allowed REST call, `POST /v1/objects/batch`
 * with the most ids the route takes (50: the first coins of simnet's richest account, padded with
 * ids no object has, each still one upstream lookup), at the plan's organization rate
 * (NOISY_RPS, default the plan's `orgRps`), up to 64 requests in flight. Every non-200 answer is
 * a refusal, counted by status and code.
 *
 * `node bin/run-ts.js bench/lib/noisy-rest.ts` with GATEWAY_URL, DATABASE_URL and OBJECT_IDS
 * (comma-separated ids that exist). Protocol: bench/lib/attacker-process.ts.
 */
import { createAttackerOrganization, serveHttpRateAttacker } from './attacker-process.js';
import { exitWithParent } from './service-process.js';

exitWithParent();

/** objects.batch.ts: `ids` is 1 to 50 long. */
const BATCH_MAX = 50;

const gatewayUrl = process.env['GATEWAY_URL']!;
const attacker = await createAttackerOrganization(['data']);
const rate = Number(process.env['NOISY_RPS'] ?? attacker.plan.orgRps);
const known = (process.env['OBJECT_IDS'] ?? '').split(',').filter(Boolean);
const ids = Array.from({ length: BATCH_MAX }, (_, i) => known[i] ?? `0x${(0xbad000 + i).toString(16).padStart(64, '0')}`);
const body = JSON.stringify({ ids });

serveHttpRateAttacker('noisy-rest', attacker, {
  rate,
  note: `${rate}/s × objects/batch of ${BATCH_MAX}`,
  request: () => fetch(`${gatewayUrl}/mainnet/v1/objects/batch`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': attacker.apiKey }, body,
  }),
});
