import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config, Network } from '../core/index.js';
import type { App } from '../route-contract/index.js';

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
          url: `${config.publicUrl ?? `http://${config.host}:${config.port}`}/{network}`,
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
      // @fastify/websocket hides every WebSocket route (schema.hide); one that describes itself
      // (a summary) is documented, with the upgrade's 101 beside its refusals.
      const websocket = (input.route as { websocket?: boolean }).websocket === true && typeof input.schema?.summary === 'string';
      const transformed = jsonSchemaTransform({ ...input, schema: websocket ? { ...input.schema, hide: false } : input.schema, url: url.slice(prefix.length) });
      if (websocket) {
        const responses = (transformed.schema as { response?: Record<string, unknown> }).response ?? {};
        transformed.schema = { ...transformed.schema, response: { 101: { type: 'null', description: 'Switching Protocols: the WebSocket is open' }, ...responses } };
      }
      const auth = input.route.config?.auth;
      if (auth === 'none') transformed.schema = { ...transformed.schema, security: [] };
      return withBodyRefusals(transformed, input.route.method);
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
 * Every route that takes a body answers 413 PAYLOAD_TOO_LARGE past the body limit and 415
 * UNSUPPORTED_MEDIA_TYPE for a body that is not JSON, whatever the route declares: the framework
 * answers them before the route runs, in the same error body as its 400.
 */
function withBodyRefusals<T extends { schema: unknown }>(transformed: T, method: string | string[]): T {
  const methods = Array.isArray(method) ? method : [method];
  if (!methods.some((m) => BODY_METHODS.has(m.toUpperCase()))) return transformed;
  const schema = transformed.schema as { response?: Record<string, unknown> };
  const responses = schema.response ?? {};
  const refusal = responses['400'];
  if (refusal === undefined) return transformed;
  return { ...transformed, schema: { ...schema, response: { 413: refusal, 415: refusal, ...responses } } };
}
