-- Durable usage: one row per organization, key, network, route and minute, added to by batched
-- upserts (services/metering/usage.ts), never one write per request. Credits spent in a month
-- are the sum of `credits` over the month's minutes.
CREATE TABLE usage_minutes (
  organization_id  text NOT NULL,
  key_id           text NOT NULL,
  network          text NOT NULL,
  -- "METHOD /v1/path/:param", the route as declared (no network prefix).
  route            text NOT NULL,
  minute           timestamptz NOT NULL,
  requests         bigint NOT NULL CHECK (requests >= 0),
  credits          bigint NOT NULL CHECK (credits >= 0),
  PRIMARY KEY (organization_id, minute, key_id, network, route)
);
