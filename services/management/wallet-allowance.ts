import { ApiError, type Metrics } from '../core/index.js';
import { clientOf } from '../identity/index.js';
import { PerMinuteAllowance, type RateLimiter } from '../metering/index.js';

/** Anonymous wallet calls (challenge and register together) per client address a minute, and at once. */
export const WALLET_CALLS_PER_MINUTE = 10;

/**
 * The anonymous wallet routes' allowance per client address. `POST /v1/wallet/register` creates
 * an organization for every fresh keypair, and keypairs cost nothing: without a bound one script
 * made organizations without end. Challenge and register share it (a sign-in is one of each, so
 * five sign-ins a minute from one address), counted before the signature is verified (a zkLogin
 * signature costs an upstream call). A per-minute allowance on the metering limiter, as zkLogin's
 * proofs per minute are: 10 a minute with a burst of 10, under a key of its own per client, IPv6
 * clients per /64 (`clientOf`, as the unknown-key budget counts them).
 * Past it: the spec's per-IP cap, 429 `RATE_LIMIT_EXCEEDED` with Retry-After.
 */
export class WalletAllowance {
  readonly #allowance: PerMinuteAllowance;

  /** `rejections`: `suigw_rate_limit_rejections_total`, whose `key_or_ip` kind counts this cap's 429s. */
  constructor(limiter: RateLimiter, rejections?: Metrics['rateLimitRejections']) {
    this.#allowance = new PerMinuteAllowance(limiter, 'key_or_ip', rejections);
  }

  /** Takes one call from the client's allowance; throws 429 RATE_LIMIT_EXCEEDED when it is spent. */
  async take(clientIp: string): Promise<void> {
    const retryAfterSeconds = await this.#allowance.take(`wallet-calls:${clientOf(clientIp)}`, WALLET_CALLS_PER_MINUTE);
    if (retryAfterSeconds === undefined) return;
    throw new ApiError('RATE_LIMIT_EXCEEDED', { headers: { 'retry-after': String(retryAfterSeconds) } });
  }
}
