import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Network } from '../core/index.js';
import type { Principal, Scope } from '../identity/index.js';
import type { RouteCost } from '../metering/costs.js';
import type { MeterTicket } from '../metering/meter.js';
import type { FieldCodes } from './validation.js';

/** The fastify instance every capability registers its routes on (zod-typed). */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * How a route is authenticated; every route must declare it (checked when the app is ready, and
 * a route without it is refused at request time), so no route is open by accident.
 * - `{ scope }`: a valid key of this network holding that scope;
 * - `'key'`: any valid key of this network;
 * - `'none'`: public (health, documents, the wallet challenge).
 */
export type RouteAuth = { scope: Scope } | 'key' | 'none';

/** What a request spoke, for the metrics: the data APIs, management, or the service's own pages. */
export type RouteProtocol = 'rest' | 'jsonrpc' | 'graphql' | 'grpc' | 'zklogin' | 'warp' | 'management' | 'health' | 'docs';

/**
 * What a capability hands the HTTP adapter: a plugin that registers its routes on one network's
 * scope (`/{network}`). Only the composition root knows every capability.
 */
export type Capability = (scope: App) => Promise<void> | void;

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** Credits per request (`'free'`: management, not metered); required like `auth`. */
    cost?: RouteCost;
    /**
     * Accepts the key in the `api_key` query parameter too. The spec allows it on the HTTP
     * gateways only (JSON-RPC, GraphQL, Warp WebSocket and SSE); elsewhere it is refused with 401.
     */
    queryKey?: boolean;
    /** Request fields whose schema failure has its own 400 code (see `validationFailure`). */
    fieldCodes?: FieldCodes;
    /**
     * The `protocol` label of the request metrics. REST data routes say `rest` (`dataRoute`);
     * a route that says nothing is `management` under a network, `health`/`docs` at the root.
     */
    protocol?: RouteProtocol;
  }
  interface FastifyRequest {
    /** The network of the address the request was sent to; set for every route under one. */
    network: Network;
    /** The verified caller, on routes whose `auth` is not `'none'`. */
    principal: Principal | undefined;
    /**
     * The limit stage's decision, carried to the meter stage (metered routes with a caller). A
     * handler whose request carries several operations sizes it (`Meter.reserveUnits`).
     */
    meterTicket: MeterTicket | undefined;
    /** Set by `onError` when the failure is priced by its kind: flat (schema failure, plan refusal) or not charged (`unserved`). */
    meterFailure: 'schema-failure' | 'plan-refused' | 'unserved' | undefined;
  }
}
