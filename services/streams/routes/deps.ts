import type { Clock } from '../../core/index.js';
import type { Database } from '../../db/index.js';

/** What the stream definition routes need; handed over by the composition root. */
export interface StreamDefinitionDeps {
  database: Database;
  clock: Clock;
}
