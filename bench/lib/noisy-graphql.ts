/**
 * The GraphQL attacker of bench/noisy-neighbour.ts, a process of its own: an organization on
 * NOISY_TIER (default growth) at the plan's organization rate (NOISY_RPS, default `orgRps`),
 * alternating two requests, both as automatic persisted queries (`extensions.persistedQuery`
 * with the text's hash, so each new text asks the gateway to store it):
 * - a query at every guard rail's limit (depth 20, 50 aliases, 1,000 fields; see
 *   graphql-limit-queries.ts), a new text each time: forwarded to simnet;
 * - the same with one alias more: refused 400 GRAPHQL_TOO_MANY_ALIASES (and, since issue 19, not
 *   stored), counted with the refusals.
 *
 * `node bin/run-ts.js bench/lib/noisy-graphql.ts` with GATEWAY_URL and DATABASE_URL. Protocol:
 * bench/lib/attacker-process.ts.
 */
import { sha256 } from '../../services/graphql/index.js';
import { createAttackerOrganization, serveHttpRateAttacker } from './attacker-process.js';
import { assertAtLimits, limitQuery } from './graphql-limit-queries.js';
import { exitWithParent } from './service-process.js';

exitWithParent();

const gatewayUrl = process.env['GATEWAY_URL']!;
const attacker = await createAttackerOrganization(['data']);
const rate = Number(process.env['NOISY_RPS'] ?? attacker.plan.orgRps);
const shape = assertAtLimits();

serveHttpRateAttacker('noisy-graphql', attacker, {
  rate,
  note: `${rate}/s, half at the limits (${JSON.stringify(shape)}), half one alias over`,
  request(n) {
    const query = limitQuery(n, { overLimit: n % 2 === 0 });
    return fetch(`${gatewayUrl}/mainnet/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': attacker.apiKey },
      body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } }),
    });
  },
});
