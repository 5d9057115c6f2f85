import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { Checkpoint, DIGEST_PATTERN } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

const CheckpointParam = z.string().max(64).refine((v) => /^\d{1,20}$/.test(v) || (DIGEST_PATTERN.test(v) && v.length >= 32 && v.length <= 44), {
  message: 'expected a sequence number or a base58 digest',
}).meta({ example: '1234567' });

/** GET /checkpoints/{sequenceNumber|digest}: one checkpoint. */
export function registerGetCheckpoint(app: App, deps: RestDeps): void {
  app.get('/checkpoints/:checkpoint', {
    config: dataRoute,
    schema: {
      tags: ['checkpoints'],
      summary: 'Checkpoint by sequence number or digest',
      params: z.object({ checkpoint: CheckpointParam }),
      response: { 200: z.object({ data: Checkpoint }), ...errors(400, 404) },
    },
  }, async (request) => {
    const { checkpoint } = request.params;
    const id = /^\d+$/.test(checkpoint) ? { sequenceNumber: BigInt(checkpoint) } : { digest: checkpoint };
    return { data: await deps.services.chain.checkpoint(contextOf(deps, request), id) };
  });
}
