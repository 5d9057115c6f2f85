import type { Database } from '../../db/index.js';
import { liveStreamIds } from '../definitions/store.js';
import type { StreamLog } from './stream-log.js';

/**
 * Deletes the logs of streams that are not live: deleted while no ingest ran (the ingest deletes
 * the logs of streams deleted while it runs), or before deletions deleted logs at all. Safe beside
 * running ingests: only a live stream's log is created, and an ingest still matching a stream
 * deleted since deletes its log itself after its appends. Returns how many logs it deleted.
 */
export async function removeDeletedStreamLogs(log: StreamLog, database: Database): Promise<number> {
  let removed = 0;
  for await (const ids of log.loggedStreams()) {
    const live = await liveStreamIds(database, ids);
    const deleted = ids.filter((id) => !live.has(id));
    await log.remove(deleted);
    removed += deleted.length;
  }
  return removed;
}
