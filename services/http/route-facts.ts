import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import type { Network } from '../core/index.js';
import { networkOfRoute } from '../identity/index.js';
import { servesCors, type RouteProtocol } from '../route-contract/index.js';
import { LIVENESS_PATH } from './health.js';

/** The `route` label of a request no route matched (404, CORS preflights): never the raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * What the root hooks need to know about a request's route, worked out once per route instead
 * of on every request: fastify builds a fresh `request.routeOptions` object on each read, and
 * the hooks used to read it eight times per request (docs/benchmarks.md, "Per change").
 */
export interface RouteFacts {
  /** The route pattern; undefined when no route matched. */
  readonly url: string | undefined;
  readonly config: FastifyContextConfig;
  /** The network whose scope holds the route (`/{network}/...`). */
  readonly network: Network | undefined;
  /** Whether browsers may call it from another origin (see `servesCors`). */
  readonly cors: boolean;
  /** Health checks are answered even while the gateway sheds load. */
  readonly shedExempt: boolean;
  /** The `protocol` label of the request metrics. */
  readonly protocol: RouteProtocol | 'none';
  /** The `route` label of the request metrics: the pattern, never the URL. */
  readonly metricRoute: string;
}

/** The facts of every route seen so far, keyed by its config (one object per route). */
export class RouteFactsBook {
  readonly #networks: readonly Network[];
  readonly #networkPrefixes: readonly string[];
  readonly #healthPaths: ReadonlySet<string>;
  readonly #byConfig = new WeakMap<object, RouteFacts>();
  readonly #unmatched: RouteFacts;

  constructor(networks: readonly Network[]) {
    this.#networks = networks;
    this.#networkPrefixes = networks.map((network) => `/${network}/`);
    this.#healthPaths = new Set(['/health', LIVENESS_PATH, ...networks.map((network) => `/${network}/v1/health`)]);
    this.#unmatched = this.#describe(undefined, {});
  }

  /** The facts of the request's route (one read of `routeOptions`, then a lookup). */
  of(request: FastifyRequest): RouteFacts {
    const { config, url } = request.routeOptions;
    if (config === undefined || url === undefined) return this.#unmatched;
    let facts = this.#byConfig.get(config);
    if (facts === undefined) {
      facts = this.#describe(url, config);
      this.#byConfig.set(config, facts);
    }
    return facts;
  }

  #describe(url: string | undefined, config: FastifyContextConfig): RouteFacts {
    return {
      url,
      config,
      network: networkOfRoute(url, this.#networks),
      cors: servesCors(config.auth),
      shedExempt: url !== undefined && this.#healthPaths.has(url),
      protocol: this.#protocolOf(url, config),
      metricRoute: url ?? UNMATCHED_ROUTE,
    };
  }

  /**
   * The route's `protocol` config (REST data routes: `rest`); otherwise a route under a network
   * is `management` (or `health`), a root route `health` or `docs`; an unmatched request `none`.
   */
  #protocolOf(url: string | undefined, config: FastifyContextConfig): RouteProtocol | 'none' {
    if (url === undefined) return 'none';
    if (config.protocol) return config.protocol;
    if (this.#healthPaths.has(url)) return 'health';
    return this.#networkPrefixes.some((prefix) => url.startsWith(prefix)) ? 'management' : 'docs';
  }
}
