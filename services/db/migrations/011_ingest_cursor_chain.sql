-- The chain a cursor counts in (the upstream's chain identifier, GetServiceInfo.chain_id): a
-- checkpoint number means nothing on another chain. When the upstream's chain changes (a wiped
-- devnet or testnet), or the cursor is beyond the upstream's tip (a new simnet under `suigw dev`),
-- the ingest restarts at the tip instead of skipping every checkpoint up to the old cursor
-- (services/streams/ingest). NULL: a cursor written before this column.
ALTER TABLE stream_ingest_cursors ADD COLUMN chain_id text;
