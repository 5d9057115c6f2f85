import type { Database } from '../../db/index.js';
import { pausedBeyondPlan } from '../../plans/index.js';
import { streamsDb, type StreamDefinition } from './store.js';

/**
 * Whether a stream is beyond its organization's plan stream count (the plan-end pause rule,
 * shared with webhooks): its live streams on every network, oldest first, the newest paused.
 */
export async function isStreamPaused(database: Database, stream: Pick<StreamDefinition, 'id' | 'organizationId'>, limit: number): Promise<boolean> {
  const rows = await streamsDb(database).selectFrom('streams').select('id')
    .where('organization_id', '=', stream.organizationId).where('deleted_at', 'is', null).orderBy('created_seq').execute();
  return pausedBeyondPlan(rows.map((row) => row.id), limit).includes(stream.id);
}
