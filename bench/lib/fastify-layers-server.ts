/**
 * A plain fastify server answering `GET /hello` with auth/me's body, plus whichever of the
 * gateway's framework layers FASTIFY_LAYERS names (comma-separated, see LAYERS): each one as the
 * gateway sets it up (services/http/app.ts; the list: ./fastify-layers.ts), none of the gateway's
 * own per-request work behind it.
 * bench/fastify-layers.ts starts one process per combination to price each layer.
 *
 * `FASTIFY_LAYERS=request-id,websocket node bin/run-ts.js bench/lib/fastify-layers-server.ts`
 */
import websocket from '@fastify/websocket';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { loadConfig, requestIdFrom } from '../../services/core/index.js';
import { responseSerializerCompiler } from '../../services/http/response-serializer.js';
import { serverTimeouts } from '../../services/http/timeouts.js';
import { AUTH_ME_LIKE_BODY, AUTH_ME_LIKE_SCHEMA } from './auth-me-body.js';
import { LAYERS } from './fastify-layers.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();


const layers = new Set((process.env['FASTIFY_LAYERS'] ?? '').split(',').filter(Boolean));
for (const layer of layers) if (!(layer in LAYERS)) throw new Error(`unknown layer ${layer}; known: ${Object.keys(LAYERS).join(', ')}`);

const config = loadConfig({});
const options: FastifyServerOptions = { logger: false };
if (layers.has('request-id')) options.genReqId = (request) => requestIdFrom(request.headers['x-request-id']);
if (layers.has('timeouts')) Object.assign(options, serverTimeouts(config.http));
if (layers.has('router')) options.routerOptions = { ignoreTrailingSlash: true, compile: true };
const app = Fastify(options);
if (layers.has('websocket')) await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
if (layers.has('hooks')) {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (_request, _reply, done) => done());
}
if (layers.has('meter-headers')) {
  const headers = {
    'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999', 'x-ratelimit-reset': '1',
    'x-svc-credit-remaining': '100000000', 'x-svc-credit-replenish-date': '2026-12-01T00:00:00.000Z',
  };
  app.addHook('onSend', (_request, reply, payload, done) => {
    void reply.headers(headers);
    done(null, payload);
  });
}
if (layers.has('serializer')) {
  app.setSerializerCompiler(responseSerializerCompiler);
  app.get('/hello', { schema: { response: { 200: AUTH_ME_LIKE_SCHEMA } } }, async () => AUTH_ME_LIKE_BODY);
} else {
  app.get('/hello', async () => AUTH_ME_LIKE_BODY);
}

const url = await app.listen({ port: 0, host: '127.0.0.1' });
serveUntilStopped({ url }, async () => {
  await app.close();
});
