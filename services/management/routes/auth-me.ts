import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import { publicSubscriptionStatus, publicTier, tierInForce } from '../account.js';
import { caller } from '../../route-contract/index.js';

const named = z.object({ id: z.string(), name: z.string().nullable() });

const meSchema = z
  .object({
    apiKey: named,
    organization: named.nullable(),
    project: named.nullable(),
    network: z.enum(['mainnet', 'testnet', 'devnet']).nullable(),
    tier: z.string().meta({
      description: 'The tier in force (a paid plan’s while it is in force): free, team, growth, professional, business or enterprise.',
    }),
    subscription: z
      .object({
        plan: z.string().nullable(),
        status: z.string().nullable().meta({
          description: 'active, canceled, past_due, incomplete or trialing. On-chain plan states map: awaiting_first_charge → incomplete, cancel_pending → active, ended → canceled.',
        }),
      })
      .nullable(),
  })
  .meta({ id: 'AuthMe' });

export function registerAuthMe(app: App): void {
  app.get(
    '/v1/auth/me',
    {
      config: { auth: 'key', cost: 'free' },
      schema: {
        summary: 'Describe the calling key',
        description: 'Any valid key of this network, whatever its scopes.',
        tags: ['account'],
        response: { 200: z.object({ data: meSchema }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const principal = caller(request);
      const { organization, project } = principal;
      return {
        data: {
          apiKey: { id: principal.keyId, name: principal.keyName },
          organization: { id: organization.id, name: organization.name },
          project: project ? { id: project.id, name: project.name } : null,
          network: project?.network ?? null,
          tier: publicTier(tierInForce(organization)),
          subscription: organization.subscription
            ? { plan: organization.subscription.plan, status: publicSubscriptionStatus(organization.subscription.status) }
            : null,
        },
      };
    },
  );
}
