import FindMyWay from 'find-my-way';
import { PATH_PARAMETER_MAX_LENGTH, type Network } from '../core/index.js';
import { networkOfRoute, type AccessRule } from '../identity/index.js';
import type { RouteCost } from '../metering/index.js';

/**
 * One route of the gateway as data: what the composition root registered (method, pattern under
 * `/{network}`, and its `auth`, `queryKey` and `cost` declarations). The Envoy-facing services
 * get the gateway's route table this way, without serving it.
 */
export interface RouteDeclaration {
  method: string;
  url: string;
  auth: AccessRule | undefined;
  queryKey: boolean;
  cost: RouteCost | undefined;
}

export interface MatchedRoute {
  declaration: RouteDeclaration;
  network: Network | undefined;
  /** "METHOD /v1/path/:param": the route without its network prefix, as metering names it. */
  name: string;
}

/**
 * The gateway's routes matched by the gateway's own router (find-my-way, with fastify's options:
 * trailing slash ignored, parameters up to PATH_PARAMETER_MAX_LENGTH characters), so authz finds exactly the route the
 * gateway will run, static segments before parameters included. Each route's match (network,
 * name) is worked out once, when the table is built.
 */
export class GatewayRoutes {
  readonly #router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: PATH_PARAMETER_MAX_LENGTH });

  constructor(declarations: readonly RouteDeclaration[], networks: readonly Network[]) {
    for (const declaration of declarations) {
      const network = networkOfRoute(declaration.url, networks);
      const bare = network ? declaration.url.slice(network.length + 1) : declaration.url;
      const matched: MatchedRoute = { declaration, network, name: `${declaration.method} ${bare}` };
      this.#router.on(declaration.method as FindMyWay.HTTPMethod, declaration.url, () => undefined, matched);
    }
  }

  /** The route for a method and a network-prefixed path (no query); `undefined` when none matches. */
  match(method: string, path: string): MatchedRoute | undefined {
    try {
      return (this.#router.find(method.toUpperCase() as FindMyWay.HTTPMethod, path)?.store as MatchedRoute | undefined) ?? undefined;
    } catch {
      // A method the router does not know: the gateway answers it (404/405), nothing to decide.
      return undefined;
    }
  }
}
