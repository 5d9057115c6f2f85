import type { App } from '../../route-contract/index.js';
import { z } from 'zod';
import { Checkpoint, isDigest32, U64_MAX } from '../schemas.js';
import { contextOf, dataRoute, errors, type RestDeps } from './kit.js';

/** Up to 20 digits is a sequence number (≤ u64 max); 32 to 44 base58 characters of 32 bytes a digest, even when all digits. */
function checkpointId(value: string): { sequenceNumber: bigint } | { digest: string } | undefined {
  if (/^\d{1,20}$/.test(value)) return BigInt(value) <= U64_MAX ? { sequenceNumber: BigInt(value) } : undefined;
  return isDigest32(value) ? { digest: value } : undefined;
}

const CheckpointParam = z.string().max(64).refine((v) => checkpointId(v) !== undefined, {
  message: 'expected a sequence number (u64) or a base58 digest of 32 bytes',
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
    // The schema admitted it, so it is one of the two.
    const id = checkpointId(checkpoint)!;
    return { data: await deps.services.chain.checkpoint(contextOf(deps, request), id) };
  });
}
