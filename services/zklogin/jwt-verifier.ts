import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ApiError, retryAfter, type Clock } from '../core/index.js';
import { isSupportedIssuer, type ZkLoginIssuer } from './issuers.js';

/** The claims zkLogin needs from a verified token. */
export interface VerifiedJwt {
  iss: ZkLoginIssuer;
  /** The OAuth client ID; a single string (the circuit takes one audience). */
  aud: string;
  sub: string;
  /** The `nonce` claim, when the token has one (prove requires it). */
  nonce: string | undefined;
}

export interface JwtVerifierOptions {
  /** Issuer → JWKS URL, for every supported issuer. */
  jwksUrls: Readonly<Record<ZkLoginIssuer, string>>;
  clock: Clock;
  /** JWKS fetch deadline (default 5 s). */
  fetchTimeoutMs?: number;
  /**
   * After a fetch, how long an unknown `kid` waits before it may trigger another (default 30 s):
   * the bound on refreshes, so tokens with made-up key ids cannot make us hammer an issuer.
   */
  refreshCooldownMs?: number;
  /** Cached keys are refetched after this long even if every `kid` is known (default 10 min). */
  cacheMaxAgeMs?: number;
}

/**
 * How far `iat` may be ahead of the service clock, in seconds: the issuer's clock and ours differ
 * a little, and a token fresh from an issuer running a few seconds ahead must not be refused.
 * Beyond that a token "issued in the future" is forged or minted for later use: 400 INVALID_JWT.
 */
export const MAX_IAT_SKEW_S = 60;

/** Asymmetric algorithms the four issuers sign id_tokens with; `none` and HMAC are never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/**
 * Verifies OAuth id_tokens for zkLogin: issuer one of the four exact strings, signature against
 * that issuer's JWKS (cached per issuer by jose, refetched on an unknown `kid` at most once per
 * cooldown), expiry on the service clock, an `iat` not ahead of it by more than
 * MAX_IAT_SKEW_S, and a single-string audience.
 */
export class JwtVerifier {
  readonly #keySets: Map<ZkLoginIssuer, ReturnType<typeof createRemoteJWKSet>>;
  readonly #clock: Clock;

  constructor(options: JwtVerifierOptions) {
    this.#clock = options.clock;
    this.#keySets = new Map(
      (Object.entries(options.jwksUrls) as [ZkLoginIssuer, string][]).map(([issuer, url]) => [
        issuer,
        createRemoteJWKSet(new URL(url), {
          timeoutDuration: options.fetchTimeoutMs ?? 5_000,
          cooldownDuration: options.refreshCooldownMs ?? 30_000,
          cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
        }),
      ]),
    );
  }

  async verify(jwt: string): Promise<VerifiedJwt> {
    const unverified = decodeUnverified(jwt);
    if (!isSupportedIssuer(unverified.iss)) {
      throw new ApiError('UNSUPPORTED_ISSUER', { message: 'The issuer must be one of https://accounts.google.com, https://appleid.apple.com, https://id.twitch.tv/oauth2, https://www.facebook.com.' });
    }
    const issuer = unverified.iss;
    const keySet = this.#keySets.get(issuer);
    if (!keySet) throw new ApiError('UNSUPPORTED_ISSUER');
    let payload: JWTPayload;
    const now = this.#clock.now();
    try {
      ({ payload } = await jwtVerify(jwt, keySet, { issuer, algorithms: ALGORITHMS, currentDate: new Date(now), requiredClaims: ['exp', 'sub', 'aud'] }));
    } catch (error) {
      throw verificationError(error);
    }
    // jose checks `iat` only against a maximum age; it is a number here when present. Whole
    // seconds, as jose compares `exp`.
    if (payload.iat !== undefined && payload.iat > Math.floor(now / 1000) + MAX_IAT_SKEW_S) {
      throw new ApiError('INVALID_JWT', { message: `The token is issued in the future (iat more than ${MAX_IAT_SKEW_S} s ahead of the service clock).` });
    }
    if (typeof payload.aud !== 'string') throw new ApiError('INVALID_JWT', { message: 'The audience must be a single string, not an array.' });
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new ApiError('INVALID_JWT', { message: 'The token has no subject.' });
    const nonce = payload['nonce'];
    return { iss: issuer, aud: payload.aud, sub: payload.sub, nonce: typeof nonce === 'string' ? nonce : undefined };
  }
}

function decodeUnverified(jwt: string): JWTPayload {
  try {
    decodeProtectedHeader(jwt);
    return decodeJwt(jwt);
  } catch {
    throw new ApiError('INVALID_JWT', { message: 'The token is not a well-formed JWT.' });
  }
}

/**
 * A token that fails verification is the caller's problem (400 INVALID_JWT); keys we could not
 * fetch are ours: the salt is only served for verified tokens, so the salt service is down.
 */
function verificationError(error: unknown): ApiError {
  const issuerUnreachable = error instanceof joseErrors.JWKSTimeout
    || error instanceof joseErrors.JWKSInvalid
    || !(error instanceof joseErrors.JOSEError)
    || error.code === 'ERR_JOSE_GENERIC';
  if (issuerUnreachable) {
    return new ApiError('SALT_UNAVAILABLE', { message: "The issuer's signing keys could not be fetched.", ...retryAfter(5), cause: error });
  }
  if (error instanceof joseErrors.JWTExpired) return new ApiError('INVALID_JWT', { message: 'The token has expired.' });
  if (error instanceof joseErrors.JWKSNoMatchingKey) return new ApiError('INVALID_JWT', { message: "No key of the issuer matches the token's key id." });
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return new ApiError('INVALID_JWT', { message: 'The signature does not verify.' });
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return new ApiError('INVALID_JWT', { message: 'The signing algorithm is not accepted.' });
  return new ApiError('INVALID_JWT', { message: error instanceof Error ? error.message : 'The token does not verify.' });
}

