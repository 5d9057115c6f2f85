import type { RouteOptions } from 'fastify';
import { servesCors } from '../route-contract/index.js';

/** One route as registered: what the start-up checks and the route-table tests walk. */
export interface RegisteredRoute {
  method: string | string[];
  url: string;
  config: { auth?: unknown; cost?: unknown; queryKey?: boolean } | undefined;
}

interface KnownRoute {
  pattern: RegExp;
  /** A wildcard route (`/v1/*`, the legacy redirect): it says nothing about a concrete path. */
  catchAll: boolean;
  method: string;
  /** Whether browsers may call it from another origin (see `servesCors`). */
  cors: boolean;
}

/** `/mainnet/v1/accounts/:address` → a RegExp over the request path (params are one segment). */
function compile(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Every registered route by path pattern and method, so that a request that matched no route
 * can still be told apart: a known path with another method (405 with `Allow`) and the CORS
 * preflight of a path (which has no OPTIONS route of its own).
 */
export class RouteTable {
  readonly #routes: KnownRoute[] = [];
  readonly #registered: RegisteredRoute[] = [];

  /** Every route as registered, plugin routes included. */
  get registered(): readonly RegisteredRoute[] {
    return this.#registered;
  }

  add(route: RouteOptions): void {
    // The route object itself: an encapsulated plugin's own onRoute hook may still declare its
    // config after this one has run (the docs UI is declared public that way).
    this.#registered.push(route as RegisteredRoute);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const cors = servesCors(route.config?.auth);
    const catchAll = route.url.includes('*');
    for (const method of methods) this.#routes.push({ pattern: compile(route.url), catchAll, method: method.toUpperCase(), cors });
  }

  /** The methods served at this path (no query), sorted; empty for an unknown path. */
  methodsAt(path: string): string[] {
    const methods = new Set(this.#matching(path).map((route) => route.method));
    return [...methods].sort();
  }

  /** The `Allow` header of a known path: its methods and OPTIONS (answered for every path). */
  allowAt(path: string): string {
    return [...new Set([...this.methodsAt(path), 'OPTIONS'])].sort().join(', ');
  }

  /** Whether a cross-origin request with this method to this path is served (CORS). */
  corsAt(path: string, method: string): boolean {
    return this.#matching(path).some((route) => route.cors && route.method === method.toUpperCase());
  }

  #matching(path: string): KnownRoute[] {
    return this.#routes.filter((route) => !route.catchAll && route.pattern.test(path));
  }
}
