import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isApiError, type ApiError } from '../core/index.js';
import { isUnchargedError, perItemOf, type ChargeOutcome, type DeclaredRouteCost } from '../metering/index.js';
import type { PipelineAdmission, RequestPipeline } from '../pipeline/index.js';
import type { App } from '../route-contract/index.js';
import { onUpgradeAnswer } from './upgrade-answer-headers.js';

export interface MeteringAdapterOptions {
  /** Unmetered (SUIGW_METERING=off): routes still declare their cost, nothing is limited or charged. */
  pipeline: RequestPipeline;
  /** Receives every route's declared cost (the generated cost table reads them). */
  onRouteCost?: (route: DeclaredRouteCost) => void;
}

/**
 * The fastify adapter of the pipeline's limit and meter stages (services/pipeline),
 * registered on one network's scope right after the authentication hook:
 * - `onRoute`: a route without a declared `cost` fails at start-up, like one without `auth`;
 * - `onRequest` (after authentication): the limit stage; a refusal is thrown as its ApiError;
 * - `preHandler`, only on a route priced per item: sizes the charge by the validated body's batch;
 * - `onError`: notes failures the spec prices flat (schema validation, plan refusal), and the
 *   deployment's own refusals that are not charged (`isUnchargedError`);
 * - `onSend`: the meter stage: charge, record usage, set the rate-limit and credit headers on
 *   every response of an identified caller, errors included; a WebSocket upgrade's 101, which
 *   never passes onSend, gets them when it is written (upgrade-answer-headers.ts) and is settled
 *   by its route.
 */
export function registerMetering(scope: App, network: string, options: MeteringAdapterOptions): void {
  const { pipeline } = options;
  scope.decorateRequest('meterTicket', undefined);
  scope.decorateRequest('meterFailure', undefined);
  scope.addHook('onRoute', (route) => {
    const cost = route.config?.cost;
    if (cost === undefined) throw new Error(`route ${String(route.method)} ${route.url} declares no cost`);
    for (const method of [route.method].flat()) options.onRouteCost?.({ method, path: routePath(route.url ?? route.path, network), cost });
    const perItem = perItemOf(cost);
    if (perItem && pipeline.metered) route.preHandler = [...[route.preHandler ?? []].flat(), chargePerItem(pipeline, perItem.field)];
  });
  if (!pipeline.metered) return;
  // Callback style: most admissions are decided without waiting (`admitNow`), and an async hook
  // would still cost a promise and a microtask per request (docs/benchmarks.md, "HTTP layer").
  scope.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    // The root hook (root-hooks.ts) ran first and left the route's facts.
    const { config, url } = request.routeFacts ?? request.routeOptions;
    const cost = config.cost;
    if (!request.principal || cost === undefined) return done();
    const metered = {
      principal: request.principal,
      clientIp: request.ip,
      network,
      route: `${request.method} ${routePath(url ?? request.url, network)}`,
      cost,
    };
    let admission: PipelineAdmission | undefined;
    try {
      admission = pipeline.admitNow(metered, request.limitStage);
    } catch (error) {
      return done(error as Error);
    }
    if (admission) return admitted(pipeline, request, admission, done);
    pipeline.admit(metered, request.limitStage).then((later) => admitted(pipeline, request, later, done), done);
  });
  scope.addHook('onError', async (request: FastifyRequest, _reply: FastifyReply, error: FastifyError) => {
    request.meterFailure = failureOutcome(error);
  });
  // Callback style too: settling waits for nothing, and an async hook costs a promise per request.
  scope.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload: unknown) => void) => {
    const ticket = request.meterTicket;
    if (ticket) {
      const outcome: ChargeOutcome = request.meterFailure ? { kind: request.meterFailure } : { kind: 'answered', status: reply.statusCode };
      void reply.headers(pipeline.settle(ticket, outcome));
    }
    done(null, payload);
  });
}

/**
 * A batch priced per item: admitted at one item's price, then sized to the validated body's
 * array before the handler runs (as a JSON-RPC batch is per call); 429 CU_QUOTA_EXCEEDED, with
 * nothing done or charged, when the credits cannot cover the whole batch.
 */
function chargePerItem(pipeline: RequestPipeline, field: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const items = (request.body as Record<string, unknown> | undefined)?.[field];
    if (!Array.isArray(items) || items.length <= 1) return;
    const refusal = await pipeline.charge(request.meterTicket, { units: items.length });
    if (refusal) throw refusal;
  };
}

/**
 * Keeps the ticket for the meter stage; a refusal ends the request with its error. A WebSocket
 * upgrade's 101 is written by `ws`, not sent through onSend: the ticket's headers go on it when
 * it is written (spec: Limits, the rate headers "on every response"); the route settles the
 * ticket itself, once it knows the connection's outcome (a Warp connect refused after the 101 is
 * charged as its HTTP status would be).
 */
function admitted(pipeline: RequestPipeline, request: FastifyRequest, admission: PipelineAdmission, done: (error?: Error) => void): void {
  request.meterTicket = admission.ticket;
  if (request.ws && !admission.error) onUpgradeAnswer(request.raw, () => pipeline.answerHeaders(admission.ticket));
  done(admission.error);
}

/** The route as declared, without the network prefix: "/mainnet/v1/x/:id" → "/v1/x/:id". */
function routePath(url: string, network: string): string {
  const prefix = `/${network}`;
  return url.startsWith(prefix) ? url.slice(prefix.length) : url;
}

/** The JSON body parser's own refusals (app.ts), which are ApiErrors: priced as a body fastify could not parse. */
const BODY_REFUSALS = new WeakSet<ApiError>();

/**
 * Marks a refusal of the JSON body parser (not UTF-8, a prototype key, text PostgreSQL cannot
 * store, a compressed body): charged as a schema failure (1 credit), like broken JSON, not the
 * route's price for a 4xx (a prove's 2).
 */
export function bodyRefusal(error: ApiError): ApiError {
  BODY_REFUSALS.add(error);
  return error;
}

/** A failure the meter prices by its kind rather than by its status. */
function failureOutcome(error: FastifyError): 'schema-failure' | 'plan-refused' | 'unserved' | undefined {
  if (isApiError(error)) {
    if (isUnchargedError(error.code)) return 'unserved';
    if (error.code === 'PLAN_REQUIRED') return 'plan-refused';
    return BODY_REFUSALS.has(error) ? 'schema-failure' : undefined;
  }
  // Schema validation, and bodies fastify could not parse (content-type parser failures).
  if (error.validation !== undefined || error.code?.startsWith('FST_ERR_CTP_')) return 'schema-failure';
  return undefined;
}
