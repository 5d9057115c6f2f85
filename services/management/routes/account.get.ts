import { z } from 'zod';
import { errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import type { ManagementDeps } from '../deps.js';
import { describeAccount } from '../account.js';
import { accountSchema } from '../schemas.js';
import { caller } from '../../route-contract/index.js';

export function registerGetAccount(app: App, deps: ManagementDeps): void {
  app.get(
    '/v1/account',
    {
      config: { auth: { scope: 'manage' }, cost: 'free' },
      schema: {
        summary: 'Read the account',
        description: 'Organization, tier, subscription, the calling key, and (wallet organizations) the prepaid balance.',
        tags: ['account'],
        response: { 200: z.object({ data: accountSchema }), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => ({ data: await describeAccount(deps.database.db, caller(request)) }),
  );
}
