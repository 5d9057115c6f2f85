-- Organizations, projects and API keys: the identity every request resolves to.

CREATE TABLE organizations (
  id                       text PRIMARY KEY,
  name                     text NOT NULL,
  -- free | team | growth | professional | business | enterprise | wallet
  tier                     text NOT NULL DEFAULT 'free',
  wallet_address           text UNIQUE,
  -- Prepaid pay-per-request balance, integer micro-USD (never floating point).
  prepaid_micro_usd        bigint NOT NULL DEFAULT 0 CHECK (prepaid_micro_usd >= 0),
  subscription_plan        text,
  subscription_status      text,
  subscription_period_end  timestamptz,
  created_at               timestamptz NOT NULL,
  -- Soft delete: keys of a deleted organization answer 404 ORGANIZATION_NOT_FOUND.
  deleted_at               timestamptz
);

CREATE TABLE projects (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name             text NOT NULL,
  slug             text NOT NULL,
  network          text NOT NULL CHECK (network IN ('mainnet', 'testnet', 'devnet')),
  created_at       timestamptz NOT NULL,
  UNIQUE (organization_id, slug)
);

CREATE TABLE api_keys (
  id                 text PRIMARY KEY,
  -- Nullable on purpose: a key whose organization was removed answers 401 AUTH_CONTEXT_MISSING.
  organization_id    text REFERENCES organizations (id) ON DELETE SET NULL,
  project_id         text REFERENCES projects (id) ON DELETE SET NULL,
  name               text NOT NULL,
  -- SHA-256 of the key value, hex. The value itself is never stored.
  hash               text NOT NULL UNIQUE,
  start              text NOT NULL,
  scopes             text[] NOT NULL,
  allowed_origins    text[] NOT NULL DEFAULT '{}',
  rate_limit         jsonb,
  kind               text NOT NULL DEFAULT 'standard' CHECK (kind IN ('standard', 'wallet')),
  enabled            boolean NOT NULL DEFAULT true,
  expires_at         timestamptz NOT NULL,
  created_at         timestamptz NOT NULL,
  created_by_key_id  text,
  disabled_at        timestamptz
);
CREATE INDEX api_keys_organization ON api_keys (organization_id, created_at);

CREATE TABLE wallet_challenges (
  id          text PRIMARY KEY,
  address     text NOT NULL,
  message     text NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);

-- Every prepaid credit grant, so a balance can always be explained.
CREATE TABLE prepaid_grants (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  micro_usd        bigint NOT NULL,
  note             text NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL
);
