-- zkLogin: the OAuth client IDs (JWT `aud`) an organization accepts (spec: "Accepted audiences:
-- only client IDs on the organization's list"). Managed through /v1/zklogin/audiences.
CREATE TABLE zklogin_audiences (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  audience         text NOT NULL CHECK (length(audience) BETWEEN 1 AND 255),
  created_at       timestamptz NOT NULL,
  -- Insertion order, for listings.
  created_seq      bigserial NOT NULL,
  UNIQUE (organization_id, audience)
);
