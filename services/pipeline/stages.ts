/**
 * The request pipeline: one ordered table of stages that every adapter runs in this order
 * (the fastify hooks today; the gRPC proxy, the WebSocket/SSE upgrade and Envoy's ext_authz and
 * ratelimit services next). Each stage names the Envoy HTTP filter it mirrors, so the Kubernetes
 * translation builds Envoy's filter chain from the same table (docs/metering.md).
 */
export interface PipelineStage {
  name: 'authenticate' | 'limit' | 'handle' | 'meter';
  /** The Envoy filter (or Envoy feature) that performs this stage behind Envoy. */
  envoy: string;
  /** What the stage does and how it fails. */
  does: string;
}

export const PIPELINE: readonly PipelineStage[] = Object.freeze([
  {
    name: 'authenticate',
    envoy: 'envoy.filters.http.ext_authz',
    does: 'key → cached principal; network, scope, origin and expiry checks; 401/403 with the spec\'s codes',
  },
  {
    name: 'limit',
    envoy: 'envoy.filters.http.ratelimit',
    does: 'per-key and per-IP caps (429 RATE_LIMIT_EXCEEDED, not billed), organization plan rate (429 without code, billed), monthly credits (429 CU_QUOTA_EXCEEDED)',
  },
  {
    name: 'handle',
    envoy: 'envoy.filters.http.router',
    does: 'the route\'s handler and its upstream calls',
  },
  {
    name: 'meter',
    envoy: 'ratelimit hits_addend + access log',
    does: 'charge by the spec\'s rules, record usage (batched to PostgreSQL), X-RateLimit-* and X-Svc-Credit-* headers',
  },
]);

/** The pipeline as the Markdown table of docs/metering.md. */
export function pipelineTable(): string {
  const rows = PIPELINE.map((stage, index) => `| ${index + 1} | ${stage.name} | \`${stage.envoy}\` | ${stage.does} |`);
  return ['| # | stage | Envoy filter | does |', '|---|---|---|---|', ...rows].join('\n');
}
