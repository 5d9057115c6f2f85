import { z } from 'zod';
import { ADDRESS_PATTERN, errorResponses } from '../../core/index.js';
import { registerWallet } from '../../identity/index.js';
import { requestUpstream, type App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { createdKeySchema, idSchema } from '../schemas.js';
import { requireMainnet } from './wallet.challenge.js';

// Strict: a misspelt or unknown field is a 400, never silently ignored.
const body = z.strictObject({
  address: z.string().regex(ADDRESS_PATTERN, 'address must match ^0x[a-fA-F0-9]{64}$'),
  challengeId: idSchema,
  signature: z.string().min(1).max(4096).meta({ description: 'Sui serialized signature (base64) of the challenge message.' }),
});

export function registerWalletRegister(app: App, deps: ManagementDeps): void {
  app.post(
    '/v1/wallet/register',
    {
      config: { auth: 'none', cost: 'free' },
      schema: {
        summary: 'Register a wallet and get its key',
        description:
          'Public: the signature is the credential. Verifies the signed challenge, creates the wallet organization ' +
          '(tier wallet, one mainnet project) on first use, and, when its prepaid balance is at least $5, issues a ' +
          '30-day key with scopes data, streams, manage and revokes its older wallet keys (keys made with /v1/keys ' +
          'stay). Errors: 400 WALLET_CHALLENGE_INVALID (unknown, used or expired challenge), 401 ' +
          'WALLET_SIGNATURE_INVALID, 402 INSUFFICIENT_PREPAID_BALANCE (body has organizationId, to top up), 403 ' +
          'KEY_LIMIT_REACHED (the organization has 50 enabled keys besides the wallet key a registration replaces: ' +
          'disable one of its /v1/keys keys), 403 NETWORK_MISMATCH (not mainnet), 404 ORGANIZATION_NOT_FOUND ' +
          '(the wallet’s organization was deleted), 404 NETWORK_NOT_CONFIGURED (a zkLogin signature, and no mainnet upstream). ' +
          'A zkLogin signature is verified by the mainnet upstream: its failure is 503 UPSTREAM_UNAVAILABLE (Retry-After) ' +
          'or 504 UPSTREAM_TIMEOUT. Challenge and register share one allowance per client address (10 a minute): past it ' +
          '429 RATE_LIMIT_EXCEEDED with Retry-After, before the signature is verified.',
        tags: ['wallet'],
        body,
        response: {
          201: z.object({
            data: createdKeySchema.extend({ organizationId: z.string(), revokedKeys: z.number().int() }),
          }),
          ...errorResponses(400, 401, 402, 403, 404, 415, 429, 503, 504),
        },
      },
    },
    async (request, reply) => {
      // Before the signature is verified: an organization per fresh keypair is what the allowance bounds.
      await deps.walletAllowance.take(request.ip);
      requireMainnet(request.network);
      const result = await registerWallet(deps.database, deps.clock, deps.walletChallengeKey, deps.walletMinPrepaidMicroUsd, request.body,
        () => requestUpstream(deps.upstreams, request));
      deps.identityChanged({ organizationId: result.organizationId });
      deps.identityChanged({ created: true });
      return reply.code(201).send({ data: result });
    },
  );
}
