-- Finalized transactions read by the REST data plane (issue 4). A finalized transaction never
-- changes, so a row is valid forever; `payload` is the protobuf binary of
-- sui.rpc.v2.ExecutedTransaction with BCS blobs removed.
CREATE TABLE IF NOT EXISTS rest_transaction_cache (
  network    text        NOT NULL,
  digest     text        NOT NULL,
  checkpoint bigint      NOT NULL,
  payload    bytea       NOT NULL,
  cached_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, digest)
);
