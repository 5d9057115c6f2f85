import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { digest, RawTransaction } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** GET /transactions/{digest}/raw: the signed transaction and its effects as BCS. */
export function registerGetRawTransaction(app: App, deps: RestDeps): void {
  app.get('/transactions/:digest/raw', {
    config: dataRoute,
    schema: {
      tags: ['transactions'],
      summary: 'Raw transaction (BCS)',
      description: 'base64 BCS of the TransactionData, of the TransactionEffects and of each signature, as the node stores them. 404 TRANSACTION_NOT_FOUND.',
      params: z.object({ digest }),
      response: { 200: z.object({ data: RawTransaction }), ...errors(400, 404) },
    },
  }, async (request) => ({ data: await deps.services.transactions.getRaw(contextOf(deps, request), request.params.digest) }));
}
