-- Webhooks (services/webhooks): endpoints made with the manage scope, and every delivery of a
-- matched event to one of them. Deliveries live here, not in memory, so a restarted `streams`
-- process carries on with what was pending (at-least-once).
CREATE TABLE webhooks (
  id                          text PRIMARY KEY,
  organization_id             text NOT NULL REFERENCES organizations (id),
  -- A webhook follows one network: the network of the key that created it.
  network                     text NOT NULL,
  url                         text NOT NULL,
  type                        text NOT NULL CHECK (type IN ('event', 'address', 'coin', 'object')),
  filters                     jsonb NOT NULL,
  enabled                     boolean NOT NULL DEFAULT true,
  -- Why a webhook was switched off: 'gone' (the endpoint answered 410) or 'manual' (PATCH).
  disabled_reason             text CHECK (disabled_reason IN ('gone', 'manual')),
  -- The signing secret, AES-256-GCM under a subkey of SUIGW_SECRET (it must stay usable for HMAC,
  -- so it cannot be a hash). After a rotation the previous one signs too, until it expires.
  secret_sealed               text NOT NULL,
  previous_secret_sealed      text,
  previous_secret_expires_at  timestamptz,
  created_at                  timestamptz NOT NULL,
  created_seq                 bigint GENERATED ALWAYS AS IDENTITY,
  deleted_at                  timestamptz
);
CREATE INDEX webhooks_organization ON webhooks (organization_id, created_seq) WHERE deleted_at IS NULL;
CREATE INDEX webhooks_network ON webhooks (network) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  -- The Standard Webhooks message id (`webhook-id`), the same on every attempt.
  id                    text PRIMARY KEY,
  webhook_id            text NOT NULL REFERENCES webhooks (id),
  -- Where the event came from: a re-ingested checkpoint queues nothing twice.
  checkpoint            bigint NOT NULL,
  position              integer NOT NULL,
  event_type            text NOT NULL,
  -- The exact body that is signed and sent: `{type, timestamp, data}`.
  body                  text NOT NULL,
  status                text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  attempts              integer NOT NULL DEFAULT 0,
  next_attempt_at       timestamptz,
  -- A process that took the delivery for an attempt holds it until then (several `streams` processes).
  claimed_until         timestamptz,
  last_attempt_at       timestamptz,
  last_response_status  integer,
  last_error            text,
  created_at            timestamptz NOT NULL,
  created_seq           bigint GENERATED ALWAYS AS IDENTITY,
  UNIQUE (webhook_id, checkpoint, position)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_seq DESC);
