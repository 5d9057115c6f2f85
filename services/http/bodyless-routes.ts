import type { FastifySchema, RouteOptions } from 'fastify';
import { z } from 'zod';

/** What a POST, PUT or PATCH route that declares no body takes: nothing (fastify: null), or `{}`. */
const NO_BODY = z.strictObject({}).nullish();

/**
 * Bodies are strict (README): a POST, PUT or PATCH route that declares no body schema (rotate a
 * webhook's secret, redeliver, cancel a plan) refuses any member with 400 VALIDATION_FAILED, as
 * every other route refuses an unknown one. Without a schema the body was never read, so
 * `{"secret": "…"}` or `{"when": "now"}` was answered as if it had been honoured.
 */
export function refuseBodiesWhereNoneIsTaken(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.every((method) => method === 'POST' || method === 'PUT' || method === 'PATCH')) return;
  if (route.schema?.body !== undefined) return;
  route.schema = { ...route.schema, body: NO_BODY };
}

/**
 * The route's schema as the OpenAPI document shows it: a route that takes no body documents no
 * request body (NO_BODY would read as a required one, and generated clients would send it).
 */
export function withoutNoBody(schema: FastifySchema): FastifySchema {
  if (schema.body !== NO_BODY) return schema;
  const { body: _none, ...rest } = schema;
  return rest;
}
