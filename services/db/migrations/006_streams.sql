-- Warp streams (services/streams): definitions made with the manage scope, and the ingest cursor
-- of each network. The events themselves live in the stream log engine (Redis Streams), never here.
CREATE TABLE streams (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations(id),
  -- A stream follows one network: the network of the key that created it.
  network          text NOT NULL,
  name             text NOT NULL,
  type             text NOT NULL CHECK (type IN ('event', 'address', 'coin', 'object')),
  filters          jsonb NOT NULL,
  created_at       timestamptz NOT NULL,
  created_seq      bigint GENERATED ALWAYS AS IDENTITY,
  deleted_at       timestamptz
);
CREATE INDEX streams_organization ON streams (organization_id) WHERE deleted_at IS NULL;
CREATE INDEX streams_network ON streams (network) WHERE deleted_at IS NULL;

-- The last checkpoint ingested per network: a restarted ingest backfills from here.
CREATE TABLE stream_ingest_cursors (
  network     text PRIMARY KEY,
  checkpoint  bigint NOT NULL CHECK (checkpoint >= 0),
  updated_at  timestamptz NOT NULL
);
