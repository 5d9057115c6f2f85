import type { Network } from '../core/index.js';
import type { Scope } from './scopes.js';

export interface KeyRateLimit {
  perKeyRps: number | null;
  perIpRps: number | null;
}

/** Who is calling: everything the hot path needs about a verified key, cached per key hash. */
export interface Principal {
  keyId: string;
  keyName: string;
  keyKind: 'standard' | 'wallet';
  /** The key's expiry, Unix ms; checked on every request against the clock. */
  expiresAt: number;
  scopes: readonly Scope[];
  allowedOrigins: readonly string[];
  rateLimit: KeyRateLimit;
  organization: {
    id: string;
    name: string;
    tier: string;
    walletAddress: string | null;
    subscription: { plan: string | null; status: string | null; periodEnd: number | null } | null;
  };
  project: { id: string; name: string; network: Network } | null;
}
