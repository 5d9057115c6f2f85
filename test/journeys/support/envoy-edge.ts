import { credentials, type Client } from '@grpc/grpc-js';
import { DESCRIPTOR_KEYS, type CheckResponse, type RateLimitResponse } from '../../../services/envoy/index.js';
import { authorizationService, rateLimitService } from '../../support/envoy-protos.js';
import { IDENTITY_HEADERS } from '../../../services/identity/index.js';
import { fromOptions, lowerCase, unary } from '../../support/envoy-stack.js';

/** A request as it reaches Envoy, and what the client gets back. */
export interface EdgeRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The client's address as Envoy sees it (the `remote_address` descriptor, the Check's source). */
  from?: string;
}

export interface EdgeAnswer {
  status: number;
  /** Who answered: authz's denied response, the RLS's OVER_LIMIT, or the gateway. */
  by: 'authz' | 'ratelimit' | 'gateway';
  headers: Record<string, string>;
  body: unknown;
}

/**
 * What Envoy's HTTP filters do with `suigw authz` and `suigw ratelimit` (no Envoy binary runs
 * here): ext_authz sends `Authorization/Check` with the request's attributes and either answers
 * with the denied response or adds/removes the allowed headers; the ratelimit filter sends
 * `ShouldRateLimit` with the descriptor the route's actions build (DESCRIPTOR_KEYS: the identity
 * header, skipped when absent, and the remote address) and answers OVER_LIMIT with the RLS's
 * body and headers; the router forwards everything else, headers as the filters left them, to
 * the gateway.
 */
export class EnvoyEdge {
  readonly #authz: Client;
  readonly #rls: Client;
  readonly #gateway: string;

  constructor(options: { authz: string; ratelimit: string; gateway: string }) {
    this.#authz = new (authorizationService())(options.authz, credentials.createInsecure());
    this.#rls = new (rateLimitService())(options.ratelimit, credentials.createInsecure());
    this.#gateway = options.gateway;
  }

  /** `envoy.service.auth.v3.Authorization/Check` as the ext_authz filter sends it (headers lower-cased, pseudo-headers included). */
  check(request: EdgeRequest): Promise<CheckResponse> {
    const method = request.method ?? 'GET';
    const headers: Record<string, string> = { host: new URL(this.#gateway).host, ...lowerCase(request.headers ?? {}) };
    return unary<CheckResponse>(this.#authz, 'Check', {
      attributes: {
        source: { address: { socket_address: { address: request.from ?? '127.0.0.1', port_value: 40_000 } } },
        request: {
          http: {
            id: headers['x-request-id'] ?? '1', method, path: request.path, host: headers.host!, scheme: 'http', protocol: 'HTTP/1.1',
            headers: { ':authority': headers.host!, ':method': method, ':path': request.path, ...headers },
          },
        },
      },
    });
  }

  /** `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit` with the route's descriptor. */
  shouldRateLimit(identityToken: string | undefined, from: string): Promise<RateLimitResponse> {
    const entries = [
      ...(identityToken !== undefined ? [{ key: DESCRIPTOR_KEYS.identity.key, value: identityToken }] : []),
      { key: DESCRIPTOR_KEYS.remoteAddress.key, value: from },
    ];
    return unary<RateLimitResponse>(this.#rls, 'ShouldRateLimit', { domain: 'suigw', descriptors: [{ entries }], hits_addend: 1 });
  }

  /** The request through both filters and the router. */
  async send(request: EdgeRequest): Promise<EdgeAnswer> {
    const from = request.from ?? '127.0.0.1';
    const decision = await this.check(request);
    if (decision.denied_response) {
      const denied = decision.denied_response;
      return { by: 'authz', status: denied.status.code, headers: fromOptions(denied.headers), body: JSON.parse(denied.body) };
    }
    const headers = lowerCase(request.headers ?? {});
    for (const name of decision.ok_response?.headers_to_remove ?? []) delete headers[name];
    Object.assign(headers, fromOptions(decision.ok_response?.headers ?? []));
    const limit = await this.shouldRateLimit(headers[IDENTITY_HEADERS.token], from);
    if (limit.overall_code === 2) {
      const added = Object.fromEntries(limit.response_headers_to_add.map((header) => [header.key, header.value]));
      return { by: 'ratelimit', status: 429, headers: added, body: JSON.parse(Buffer.from(limit.raw_body ?? []).toString('utf8')) };
    }
    return this.forward({ ...request, headers });
  }

  /** The router's hop alone: the request as given, straight to the gateway (what reaches it around Envoy, too). */
  async forward(request: EdgeRequest): Promise<EdgeAnswer> {
    const response = await fetch(this.#gateway + request.path, { method: request.method ?? 'GET', headers: request.headers, body: request.body });
    const text = await response.text();
    return { by: 'gateway', status: response.status, headers: Object.fromEntries(response.headers), body: text ? JSON.parse(text) : undefined };
  }

  close(): void {
    this.#authz.close();
    this.#rls.close();
  }
}
