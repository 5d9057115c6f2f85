import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { errorResponses, type Config, type Network } from '../core/index.js';
import type { App, RouteAuth } from '../route-contract/index.js';
import { withoutNoBody } from './bodyless-routes.js';

export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * OpenAPI 3.1 generated from the zod schemas that validate the requests. Routes are registered
 * once per network; the document shows each once, under the `{network}` server variable.
 */
export async function registerOpenApi(app: App, config: Config): Promise<void> {
  const [documented] = config.networks;
  const prefix = `/${documented}`;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'suigw API',
        version: 'v1',
        description:
          'REST, management and wallet endpoints of suigw, a gateway to the Sui blockchain. Send the API key in ' +
          '`x-api-key` (or `Authorization: Bearer`). Every path exists once per network: `/{network}/v1/...` ' +
          '(or the network\'s own host in production). Errors are `{error, message?, code?, requestId}`.',
      },
      servers: [
        {
          // Relative to the document without a public URL: the bind address (port 0, 0.0.0.0)
          // is not where a browser or a generated client reaches the gateway.
          url: `${config.publicUrl ?? ''}/{network}`,
          variables: { network: { default: documented ?? 'mainnet', enum: [...config.networks] as Network[] } },
        },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: (input) => {
      const { url } = input;
      if (!url.startsWith(`${prefix}/`)) return { schema: { ...input.schema, hide: true }, url };
      // A WebSocket route (marked `webSocket` by services/http/app.ts) is hidden; one that describes itself
      // (a summary) is documented, with the upgrade's 101 beside its refusals.
      const websocket = (input.route as { webSocket?: boolean }).webSocket === true && typeof input.schema?.summary === 'string';
      const schema = withPreRouteRefusals(withoutNoBody(input.schema), input.route.config?.auth, input.route.method);
      const transformed = jsonSchemaTransform({ ...input, schema: websocket ? { ...schema, hide: false } : schema, url: url.slice(prefix.length) });
      if (websocket) {
        const responses = (transformed.schema as { response?: Record<string, unknown> }).response ?? {};
        transformed.schema = { ...transformed.schema, response: { 101: { type: 'null', description: 'Switching Protocols: the WebSocket is open' }, ...responses } };
      }
      const auth = input.route.config?.auth;
      if (auth === 'none') transformed.schema = { ...transformed.schema, security: [] };
      return transformed;
    },
    // Schemas registered with an id (`.meta({ id })`) are emitted once under components.schemas;
    // without this their `$ref`s would dangle.
    transformObject: jsonSchemaTransformObject,
  });
  app.get(OPENAPI_PATH, { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  await app.register(async (docs: App) => {
    // The documentation UI is public; its routes come from a plugin that takes no route config,
    // so they are declared here (every route must declare its auth).
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'none' };
    });
    await docs.register(swaggerUi, { routePrefix: DOCS_PATH });
  });
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Every route documents what is answered before it runs, whatever it declares: a route that needs
 * a key 401 (no, unknown, disabled or expired key), 403 (network, scope, origin), 404 (the key's
 * organization is gone) and 429 (per-key and per-IP caps, the plan's rate, credits); a route with
 * path or query parameters 400 VALIDATION_FAILED; a route that takes a body (POST, PUT, PATCH) 413
 * PAYLOAD_TOO_LARGE past the body limit and 415 UNSUPPORTED_MEDIA_TYPE for a body that is not
 * JSON, POST /v1/jsonrpc included (it declares no 400: its own errors are JSON-RPC answers). A
 * status the route declares keeps its schema.
 */
function withPreRouteRefusals(schema: FastifySchema, auth: RouteAuth | undefined, method: string | string[]): FastifySchema {
  const statuses: number[] = [];
  if (auth !== 'none') statuses.push(401, 403, 404, 429);
  if (schema.params !== undefined || schema.querystring !== undefined) statuses.push(400);
  if ((Array.isArray(method) ? method : [method]).some((m) => BODY_METHODS.has(m.toUpperCase()))) statuses.push(413, 415);
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  const missing = statuses.filter((status) => !(String(status) in declared));
  if (missing.length === 0) return schema;
  return { ...schema, response: { ...declared, ...errorResponses(...missing) } };
}
