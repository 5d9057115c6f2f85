import { z } from 'zod';
import { ApiError, ADDRESS_PATTERN, errorResponses } from '../../core/index.js';
import { createWalletChallenge } from '../../identity/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';

const challengeSchema = z
  .object({
    challengeId: z.string(),
    address: z.string(),
    message: z.string().meta({ description: 'Sign these exact bytes (UTF-8) as a Sui personal message.' }),
    expiresAt: z.string(),
  })
  .meta({ id: 'WalletChallenge' });

export function registerWalletChallenge(app: App, deps: ManagementDeps): void {
  app.get(
    '/v1/wallet/challenge',
    {
      config: { auth: 'none', cost: 'free' },
      schema: {
        summary: 'Get a wallet sign-in challenge',
        description: 'Public. A one-time message for POST /v1/wallet/register, valid five minutes. Mainnet only. ' +
          'Challenge and register share one allowance per client address (10 a minute): past it 429 RATE_LIMIT_EXCEEDED with Retry-After.',
        tags: ['wallet'],
        querystring: z.object({ address: z.string().regex(ADDRESS_PATTERN, 'address must match ^0x[a-fA-F0-9]{64}$') }),
        response: { 200: z.object({ data: challengeSchema }), ...errorResponses(400, 403, 429) },
      },
    },
    async (request) => {
      await deps.walletAllowance.take(request.ip);
      requireMainnet(request.network);
      return { data: createWalletChallenge(deps.walletChallengeKey, deps.clock, request.query.address) };
    },
  );
}

/** A wallet organization has one mainnet project, so wallet registration lives on mainnet. */
export function requireMainnet(network: string): void {
  if (network !== 'mainnet') {
    throw new ApiError('NETWORK_MISMATCH', { message: 'Wallet registration is served on the mainnet endpoint.' });
  }
}
