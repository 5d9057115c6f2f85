import { setMaxListeners } from 'node:events';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiError, errorResponses } from '../core/index.js';
import type { App } from '../route-contract/index.js';
import { upstreamApiError, type UpstreamSet } from '../upstream/index.js';
import { IntrospectionCache } from './introspection-cache.js';
import { PersistedQueries } from './persisted-queries.js';
import { checkQuery, type QueryLimits } from './query-guard.js';

export interface GraphQLDeps {
  upstreams: UpstreamSet;
  limits: QueryLimits;
  persisted: PersistedQueries;
  introspection: IntrospectionCache;
}

// Strict, as every body (README): an unknown or misspelt member (`varibles`) is 400
// VALIDATION_FAILED, never silently dropped. The members are those of GraphQL over HTTP
// (https://graphql.github.io/graphql-over-http/draft/#sec-Request-Parameters), which is what
// @mysten/sui's SuiGraphQLClient sends; `extensions` is open by that spec.
const GraphQLRequest = z.strictObject({
  query: z.string().optional(),
  variables: z.record(z.string(), z.unknown()).nullable().optional(),
  operationName: z.string().nullable().optional(),
  extensions: z.object({
    persistedQuery: z.object({ version: z.literal(1), sha256Hash: z.string().regex(/^[0-9a-fA-F]{64}$/) }).optional(),
  }).passthrough().optional(),
}).meta({
  id: 'GraphQLRequest',
  examples: [{ query: 'query ($address: SuiAddress!) { address(address: $address) { balance { totalBalance } } }', variables: { address: '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e' } }],
});

/** Apollo's answer to an unknown hash: clients then resend the hash with the query. */
const PERSISTED_QUERY_NOT_FOUND = JSON.stringify({
  errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
});

/**
 * POST /v1/graphql: the network's upstream GraphQL service, passed through. The guard rails run
 * before any upstream call; what the upstream answers (status, data, errors) is the answer. Only
 * an unreachable upstream is ours to report (502/503/504 with the upstream codes).
 */
export function registerGraphQL(app: App, deps: GraphQLDeps): void {
  app.post('/graphql', {
    config: { auth: { scope: 'data' }, cost: 1, protocol: 'graphql', queryKey: true },
    schema: {
      tags: ['gateways'],
      summary: 'GraphQL pass-through',
      description:
        "Forwards `{query, variables, operationName}` to the network's Sui GraphQL service and returns its response as is. " +
        'Refused before forwarding (400): query text over the byte limit, unparsable, too deep, too many aliases, too many fields. ' +
        'Automatic persisted queries: `extensions.persistedQuery.sha256Hash`.',
      body: GraphQLRequest,
      response: {
        200: z.object({ data: z.unknown().optional(), errors: z.array(z.unknown()).optional() }).passthrough().describe('The upstream GraphQL response'),
        ...errorResponses(400, 401, 403, 429, 500, 502, 503, 504),
      },
    },
  }, async (request, reply) => {
    const body = request.body;
    const upstream = deps.upstreams.get(request.network);
    if (!upstream) throw new ApiError('NETWORK_NOT_CONFIGURED', { message: `No upstream is configured for ${request.network}` });
    const hash = body.extensions?.persistedQuery?.sha256Hash;
    const organization = request.principal?.organization.id ?? '';
    let query = body.query;
    if (hash !== undefined && query === undefined) {
      query = deps.persisted.lookup(organization, hash);
      if (query === undefined) return untyped(reply).type('application/json').send(Buffer.from(PERSISTED_QUERY_NOT_FOUND));
    }
    if (query === undefined) throw new ApiError('VALIDATION_FAILED', { message: 'body.query: a query string is required' });
    if (hash !== undefined) PersistedQueries.verify(query, hash);
    const shape = checkQuery(query, deps.limits);
    // Stored only now: a query the guard rails refuse must not cost the process memory.
    if (hash !== undefined && body.query !== undefined) deps.persisted.remember(organization, hash, query);
    const forwardedRequest = { query, variables: body.variables ?? undefined, operationName: body.operationName ?? undefined };
    const forwarded = JSON.stringify(forwardedRequest);
    const cacheKey = shape.introspection
      ? IntrospectionCache.key(request.network, { document: shape.document, variables: forwardedRequest.variables, operationName: forwardedRequest.operationName })
      : undefined;
    const cached = cacheKey === undefined ? undefined : deps.introspection.get(cacheKey);
    if (cached !== undefined) return untyped(reply).status(cached.status).type(cached.contentType).send(cached.body);
    const cancel = new AbortController();
    setMaxListeners(16, cancel.signal);
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) cancel.abort();
    });
    const budget = upstream.budget(Date.now(), cancel.signal, request.principal?.organization.id);
    let answer;
    try {
      answer = await upstream.forRequest(budget).graphqlPassThrough(forwarded);
    } catch (error) {
      throw upstreamApiError(error);
    }
    if (cacheKey !== undefined) deps.introspection.set(cacheKey, answer, organization);
    return untyped(reply).status(answer.status).type(answer.contentType).send(answer.body);
  });
}

/**
 * The reply without the route's typed schema: the upstream's bytes (any status, any body) go out
 * as a Buffer, which fastify sends as is, never through the response serializer.
 */
function untyped(reply: unknown): FastifyReply {
  return reply as FastifyReply;
}
