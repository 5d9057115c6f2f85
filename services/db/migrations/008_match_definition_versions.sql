-- What the checkpoint ingest matches (streams and webhooks) changes with a version per network,
-- bumped in the transaction that makes the change. The ingest reads it before each checkpoint
-- and reloads the definitions when it moved, so a definition applies to every checkpoint sealed
-- after its creation answered (no reload interval during which new definitions miss events).
CREATE TABLE match_definition_versions (
  network  text PRIMARY KEY,
  version  bigint NOT NULL
);
