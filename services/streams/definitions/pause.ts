import type { Database } from '../../db/index.js';
import { pausedAcrossOrganizations, pausedBeyondPlan } from '../../plans/index.js';
import { streamsDb, type StreamDefinition } from './store.js';

/** What a paused stream's connection is told, at connect and when the pause reaches it open. */
export const STREAM_PAUSED_MESSAGE = 'The stream is beyond the plan’s stream count (paused); upgrade or delete older streams.';

/**
 * Whether a stream is beyond its organization's plan stream count (the plan-end pause rule,
 * shared with webhooks): its live streams on every network, oldest first, the newest paused.
 */
export async function isStreamPaused(database: Database, stream: Pick<StreamDefinition, 'id' | 'organizationId'>, limit: number): Promise<boolean> {
  const rows = await streamsDb(database).selectFrom('streams').select('id')
    .where('organization_id', '=', stream.organizationId).where('deleted_at', 'is', null).orderBy('created_seq').execute();
  return pausedBeyondPlan(rows.map((row) => row.id), limit).includes(stream.id);
}

/**
 * The streams of these organizations that the same rule pauses now, each organization's plan
 * read from its row (one query for every open connection of a process, StreamPresence).
 */
export async function pausedStreamIds(database: Database, organizationIds: readonly string[]): Promise<Set<string>> {
  if (organizationIds.length === 0) return new Set();
  const rows = await streamsDb(database).selectFrom('streams as s')
    .innerJoin('organizations as o', 'o.id', 's.organization_id')
    .select(['s.id', 's.organization_id', 'o.tier', 'o.subscription_plan', 'o.subscription_status'])
    .where('s.organization_id', 'in', organizationIds).where('s.deleted_at', 'is', null).orderBy('s.created_seq').execute();
  return pausedAcrossOrganizations(rows, (plan) => plan.streams);
}
