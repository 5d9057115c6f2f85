/**
 * A body shaped like `GET /v1/auth/me`'s for an enterprise key: what the baselines of the
 * auth/me benchmark return, so that only the work behind the body differs.
 */
export const AUTH_ME_LIKE_BODY = {
  data: {
    apiKey: { id: 'key_0000000000000000', name: 'bench' },
    organization: { id: 'org_0000000000000000', name: 'Bench' },
    project: { id: 'proj_000000000000000', name: 'Default' },
    network: 'mainnet' as const,
    tier: 'enterprise',
    subscription: null,
  },
};
