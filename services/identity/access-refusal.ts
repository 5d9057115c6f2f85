import { ApiError, type ApiErrorOptions } from '../core/index.js';
import type { Principal } from './principal.js';

/** The 403s of the authenticate stage: the key is valid, this request is not for it. */
export type AccessRefusalCode = 'NETWORK_MISMATCH' | 'INSUFFICIENT_SCOPE' | 'ORIGIN_NOT_ALLOWED';

/**
 * A refusal of a key that was identified: it names the caller, so the pipeline can answer with
 * the organization's `X-RateLimit-*` headers (spec: Limits, "on every response"). The principal
 * is private state, never serialized with the error (logs).
 */
export class AccessRefusal extends ApiError {
  declare readonly code: AccessRefusalCode;
  readonly #principal: Principal;
  readonly #options: ApiErrorOptions;

  constructor(code: AccessRefusalCode, principal: Principal, options: ApiErrorOptions = {}) {
    super(code, options);
    this.#principal = principal;
    this.#options = options;
  }

  get principal(): Principal {
    return this.#principal;
  }

  /** The same refusal, answered with `headers` as well. */
  withHeaders(headers: Record<string, string>): AccessRefusal {
    return new AccessRefusal(this.code, this.#principal, { ...this.#options, headers: { ...this.headers, ...headers } });
  }
}
