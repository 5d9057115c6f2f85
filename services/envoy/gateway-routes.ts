import FindMyWay from 'find-my-way';
import type { Network } from '../core/index.js';
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
 * trailing slash ignored, parameters up to 100 characters), so authz finds exactly the route the
 * gateway will run, static segments before parameters included.
 */
export class GatewayRoutes {
  readonly #router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 100 });
  readonly #networks: readonly Network[];

  constructor(declarations: readonly RouteDeclaration[], networks: readonly Network[]) {
    this.#networks = networks;
    for (const declaration of declarations) {
      this.#router.on(declaration.method as FindMyWay.HTTPMethod, declaration.url, () => undefined, declaration);
    }
  }

  /** The route for a method and a network-prefixed path (no query); `undefined` when none matches. */
  match(method: string, path: string): MatchedRoute | undefined {
    const declaration = this.#find(method.toUpperCase(), path);
    if (!declaration) return undefined;
    const network = networkOfRoute(declaration.url, this.#networks);
    const bare = network ? declaration.url.slice(network.length + 1) : declaration.url;
    return { declaration, network, name: `${declaration.method} ${bare}` };
  }

  #find(method: string, path: string): RouteDeclaration | undefined {
    try {
      return (this.#router.find(method as FindMyWay.HTTPMethod, path)?.store as RouteDeclaration | undefined) ?? undefined;
    } catch {
      // A method the router does not know: the gateway answers it (404/405), nothing to decide.
      return undefined;
    }
  }
}
