import Fastify, { type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { ApiError } from '../../services/core/errors.js';
import { createRestServices, registerRest, toApiError, type RestConfig } from '../../services/rest/index.js';
import type { Kysely } from 'kysely';
import type { RestCacheTables } from '../../services/rest/domain/index.js';
import type { Network, UpstreamSet } from '../../services/upstream/index.js';

export const testRestConfig: RestConfig = {
  cursorSecret: 'test-cursor-secret-0123456789abcdef',
  cursorMaxAgeSeconds: 3600,
  verifiedCoinTypes: [],
  prices: { '0x2::sui::SUI': 2 },
  statsCheckpoints: 5,
};

/**
 * The REST routes on a bare fastify with the zod compilers, `/{network}/v1` routing and an
 * error handler rendering `{error, code}`: the stand-in for the foundation's `buildApp` in tests
 * of this capability alone.
 */
export async function buildRestTestApp(upstreams: UpstreamSet, options: { config?: RestConfig; db?: Kysely<RestCacheTables> } = {}) {
  const config = options.config ?? testRestConfig;
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler((raw, _request, reply) => {
    const error = toApiError(raw);
    if (error instanceof ApiError) return reply.status(error.status).send({ error: error.message, code: error.code });
    return reply.status(500).send({ error: 'Internal error', code: 'INTERNAL_ERROR', detail: String(raw) });
  });
  const services = createRestServices(config, { now: () => Date.now(), ...(options.db ? { db: options.db } : {}) });
  await app.register(async (v1) => {
    await registerRest(v1, { upstreams, services, networkOf: (request: FastifyRequest) => request.url.split('/')[1] as Network });
  }, { prefix: '/:network/v1' });
  await app.ready();
  return { app, services };
}
