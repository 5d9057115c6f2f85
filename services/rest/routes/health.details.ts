import { z } from 'zod';
import { ApiError, errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import type { RestDeps } from './kit.js';

const Probe = z.object({
  status: z.enum(['up', 'down']).meta({ description: 'what a request meets now: down while `breaker` is open, else `probe`' }),
  probe: z.enum(['up', 'down']).meta({ description: 'what the last background probe saw' }),
  breaker: z.enum(['closed', 'open', 'half_open']).meta({ description: 'the protocol\'s breaker group now (as in `breakers`)' }),
  latencyMs: z.number(),
  error: z.string().optional(),
  chainId: z.string().optional(),
  checkpointHeight: z.string().optional(),
});

export const UpstreamHealthDetails = z.object({
  network: z.string(),
  status: z.enum(['up', 'degraded', 'down', 'unknown']).meta({ description: 'from grpc.status and graphql.status (the probe, overruled by an open breaker): both up `up` (and no other group open), both down `down`, else `degraded`; unknown before the first probe unless a breaker is open. `/health` is `degraded` exactly when this is not `up`' }),
  checkedAt: z.string().nullable(),
  grpc: Probe.nullable(),
  graphql: Probe.nullable(),
  breakers: z.record(z.string(), z.enum(['closed', 'open', 'half_open'])).meta({ description: 'each breaker group\'s state now' }),
}).meta({ id: 'UpstreamHealthDetails' });

/**
 * GET /health/details: the network's upstream as the background probe last saw it and each
 * breaker group's state, with the raw errors the public `/health` keeps to itself. Manage scope.
 */
export function registerGetHealthDetails(app: App, deps: RestDeps): void {
  app.get('/health/details', {
    // An operator's view, like the management API: free, and works at zero balance.
    config: { auth: { scope: 'manage' }, cost: 'free' },
    schema: {
      tags: ['health'],
      summary: 'Upstream health details',
      description: 'Last background probe of the network\'s upstream (gRPC and GraphQL) and the state of each circuit breaker group now, in one view: a protocol whose breaker is open is down whatever the probe saw. Needs a key with the manage scope.',
      response: { 200: z.object({ data: UpstreamHealthDetails }), ...errorResponses(401, 403, 404) },
    },
  }, async (request) => {
    const report = deps.monitor?.report(request.network);
    if (!report) throw new ApiError('NETWORK_NOT_CONFIGURED', { message: `No upstream is configured for ${request.network}` });
    return { data: report };
  });
}
