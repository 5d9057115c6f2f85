import type { ErrorCode } from '../core/index.js';

/**
 * What a request costs, declared by each route beside its auth (`config: {auth, cost}`), and the
 * charging rules of the spec (Limits: "Credit costs").
 *
 * - `'free'`: not metered at all (management calls: free, and they work at zero balance);
 * - a number: credits per request;
 * - `{credits, clientErrorCredits}`: a different price when the request fails with a 4xx (spec:
 *   "a prove that fails with 4xx costs 2 credits");
 * - `{credits, perItem}`: the price of each item of the body's array `perItem.field`, for a batch
 *   route that makes one upstream call per item (a batch of N costs what N single requests do).
 */
export type RouteCost =
  | 'free'
  | number
  | { credits: number; clientErrorCredits: number }
  | { credits: number; perItem: PerItemCost };

/** A batch priced per item: `field` names the body's array, `item` what one entry is (for the cost table). */
export interface PerItemCost {
  field: string;
  item: string;
}

/** The batch a route prices per item, if it does. */
export function perItemOf(cost: RouteCost | undefined): PerItemCost | undefined {
  return typeof cost === 'object' && 'perItem' in cost ? cost.perItem : undefined;
}

/** How a metered request ended, as far as charging cares. */
export type ChargeOutcome =
  /** The handler (or an error after admission) answered with this status. */
  | { kind: 'answered'; status: number }
  /** Per-key or per-IP cap (429 RATE_LIMIT_EXCEEDED): never charged. */
  | { kind: 'key-cap' }
  /** Organization-wide rate (429 without code): "billed normally". */
  | { kind: 'org-rate' }
  /** Monthly credits spent (429 CU_QUOTA_EXCEEDED): nothing left to charge. */
  | { kind: 'quota' }
  /**
   * The caller went away before its answer (a gRPC client's cancel): nothing answered, nothing
   * charged, as an HTTP request whose client leaves (its upstream calls are cancelled and it ends
   * as an uncharged 503). What a stream delivered before is charged: the transport says so.
   */
  | { kind: 'abandoned' }
  /**
   * Refused for the deployment's own reason, though with a 4xx (`isUnchargedError`: no upstream
   * configured for the network): not the caller's request, so not charged, as a 5xx.
   */
  | { kind: 'unserved' }
  /** The request failed schema validation, or the plan refused it: 1 credit. */
  | { kind: 'schema-failure' }
  | { kind: 'plan-refused' };

export const FLAT_FAILURE_CREDITS = 1;

/**
 * Errors answered with a 4xx that are the deployment's doing, not the caller's: the operator
 * configured no upstream for the key's network (404 NETWORK_NOT_CONFIGURED). Charged as a 5xx is
 * (nothing), on every transport: the HTTP adapter settles them `unserved`, the JSON-RPC dispatcher
 * does not count such a call, the WebSocket upgrade is not charged, the gRPC proxy refuses before admission.
 */
const UNCHARGED_ERRORS: ReadonlySet<string> = new Set<ErrorCode>(['NETWORK_NOT_CONFIGURED']);

export function isUnchargedError(code: string): boolean {
  return UNCHARGED_ERRORS.has(code);
}

export function isFree(cost: RouteCost): cost is 'free' {
  return cost === 'free';
}

/** Credits a request of this cost needs to be admitted (its price when it succeeds). */
export function admissionCredits(cost: RouteCost): number {
  if (cost === 'free') return 0;
  return typeof cost === 'number' ? cost : cost.credits;
}

/** The spec's charging rules, in one place: what a request that ended this way is charged. */
export function creditsCharged(cost: RouteCost, outcome: ChargeOutcome): number {
  if (cost === 'free') return 0;
  const credits = admissionCredits(cost);
  switch (outcome.kind) {
    case 'key-cap':
    case 'quota':
    case 'abandoned':
    case 'unserved':
      return 0;
    case 'org-rate':
      return credits;
    case 'schema-failure':
    case 'plan-refused':
      return FLAT_FAILURE_CREDITS;
    case 'answered':
      // 5xx, and every 429 other than the organization-wide one, are not charged.
      if (outcome.status >= 500 || outcome.status === 429) return 0;
      if (outcome.status >= 400 && typeof cost === 'object' && 'clientErrorCredits' in cost) return cost.clientErrorCredits;
      return credits;
  }
}

/**
 * Costs of operations that are not one HTTP route each: declared here so that the gRPC proxy,
 * the JSON-RPC and GraphQL gateways and the streams charge the documented price. Every one is in
 * the generated table (docs/costs.md).
 */
export const OPERATION_COSTS = [
  { operation: 'JSON-RPC request (any method)', credits: 1, unit: 'per request' },
  { operation: 'JSON-RPC WebSocket call or notification (subscriptions)', credits: 1, unit: 'per message (the upgrade: 1)' },
  { operation: 'GraphQL request', credits: 1, unit: 'per request' },
  { operation: 'gRPC unary call', credits: 1, unit: 'per call' },
  { operation: 'gRPC streamed message (SubscriptionService)', credits: 1, unit: 'per message' },
  { operation: 'zkLogin nonce', credits: 1, unit: 'per request' },
  { operation: 'zkLogin address', credits: 2, unit: 'per request' },
  { operation: 'zkLogin prove', credits: 50, unit: 'per request (2 when it fails with a 4xx)' },
  { operation: 'Warp stream event', credits: 1, unit: 'per delivered event' },
  { operation: 'Warp stream connection', credits: 1, unit: 'per connection minute' },
  { operation: 'Webhook delivery', credits: 1, unit: 'per delivery the receiver acknowledged (2xx); failed attempts free; held while credits are spent (docs/webhooks.md)' },
] as const;

export const ZKLOGIN_COSTS = {
  nonce: 1,
  address: 2,
  prove: { credits: 50, clientErrorCredits: 2 },
} as const satisfies Record<string, RouteCost>;

/** One declared route, as the cost table lists it. */
export interface DeclaredRouteCost {
  method: string;
  path: string;
  cost: RouteCost;
}

function describeCost(cost: RouteCost): string {
  if (cost === 'free') return 'free (not metered)';
  if (typeof cost === 'number') return String(cost);
  if ('perItem' in cost) return `${cost.credits} per ${cost.perItem.item} (\`${cost.perItem.field}\`)`;
  return `${cost.credits} (${cost.clientErrorCredits} on a 4xx)`;
}

/** The Markdown cost table of docs/costs.md, from the routes' declarations plus OPERATION_COSTS. */
export function costTable(routes: readonly DeclaredRouteCost[]): string {
  const unique = new Map<string, DeclaredRouteCost>();
  // HEAD routes are fastify's automatic twins of GET routes, at the same price.
  for (const route of routes) if (route.method !== 'HEAD') unique.set(`${route.path} ${route.method}`, route);
  const rows = [...unique.values()]
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
    .map((route) => `| ${route.method} | \`${route.path}\` | ${describeCost(route.cost)} |`);
  const operations = OPERATION_COSTS.map((entry) => `| ${entry.operation} | ${entry.credits} | ${entry.unit} |`);
  return [
    '<!-- Generated by `node bin/run-ts.js scripts/cost-table.ts` from the route declarations',
    '     (config.cost) and services/metering/costs.ts. Do not edit; a test fails when stale. -->',
    '# Credit costs',
    '',
    'Rules (spec: Limits): 5xx responses and 429s other than the organization-wide limit are not',
    'charged; the organization-wide 429 is charged the route\'s price; a request failing schema',
    'validation or refused by its plan costs 1 credit; 429 CU_QUOTA_EXCEEDED is not charged; a call',
    'its client abandons before the answer (a gRPC cancel, an HTTP client that leaves) is not charged;',
    'nor is 404 NETWORK_NOT_CONFIGURED (the deployment has no upstream for the network, not the caller\'s fault);',
    'management calls are free, not metered, and work at zero balance.',
    '',
    '## HTTP routes',
    '',
    '| method | path | credits |',
    '|---|---|---|',
    ...rows,
    '',
    '## Other operations',
    '',
    '| operation | credits | unit |',
    '|---|---|---|',
    ...operations,
    '',
  ].join('\n');
}
