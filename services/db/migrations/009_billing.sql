-- On-chain plans in USDC through a Sui allowance (services/billing, docs/billing.md). Every state
-- change of a plan is a row in plan_transitions; every charge is a row in billing_charges, made
-- BEFORE its transaction is built (the idempotency record) and given its digest BEFORE it is sent.
CREATE TABLE onchain_plans (
  id                  text PRIMARY KEY,
  organization_id     text NOT NULL REFERENCES organizations (id),
  network             text NOT NULL,
  tier                text NOT NULL CHECK (tier IN ('team', 'growth', 'professional', 'business')),
  interval            text NOT NULL CHECK (interval IN ('month', 'year')),
  state               text NOT NULL CHECK (state IN ('awaiting_first_charge', 'active', 'past_due', 'cancel_pending', 'ended')),
  allowance_id        text NOT NULL,
  allowance_cap_id    text,
  funder              text NOT NULL,
  -- Price of one period of the current tier, micro-USDC.
  price_micro_usdc    bigint NOT NULL,
  -- A downgrade waiting for the next renewal (Billing rule 5).
  pending_tier        text CHECK (pending_tier IN ('team', 'growth', 'professional', 'business')),
  -- An upgrade's new allowance, when the change waits for the renewal (rule 6: a failed `now` charge).
  pending_allowance_id text,
  -- The first charge's time: every later charge date derives from it (same day of month, anniversary).
  anchor_at           timestamptz,
  -- Charges counted from the anchor: the next one is due at chargeDate(anchor, interval, periods_paid).
  periods_paid        integer NOT NULL DEFAULT 0,
  period_start        timestamptz,
  period_end          timestamptz,
  -- Failed charge attempts of the current period (customer's side), and when to try again.
  failed_attempts     integer NOT NULL DEFAULT 0,
  next_attempt_at     timestamptz,
  -- The renewal whose 7-day balance check has run (one reminder per renewal).
  reminded_for        timestamptz,
  notify_email        text,
  created_at          timestamptz NOT NULL,
  ended_at            timestamptz
);
-- One payment method per organization at a time (Billing rule 1): one live plan.
CREATE UNIQUE INDEX onchain_plans_live ON onchain_plans (organization_id) WHERE state <> 'ended';
-- An allowance pays for one live plan only (ALLOWANCE_IN_USE).
CREATE UNIQUE INDEX onchain_plans_allowance ON onchain_plans (network, allowance_id) WHERE state <> 'ended';
CREATE INDEX onchain_plans_due ON onchain_plans (next_attempt_at) WHERE state <> 'ended';

CREATE TABLE billing_charges (
  id                  text PRIMARY KEY,
  plan_id             text NOT NULL REFERENCES onchain_plans (id),
  -- What is paid for: a period's due time (renewals, first charge) or the upgrade's start.
  period_key          timestamptz NOT NULL,
  kind                text NOT NULL CHECK (kind IN ('first', 'renewal', 'upgrade')),
  tier                text NOT NULL,
  allowance_id        text NOT NULL,
  amount_micro_usdc   bigint NOT NULL,
  -- pending: recorded, nothing signed yet; signed: digest and bytes stored, maybe sent;
  -- succeeded / declined: what the chain said; abandoned: signed bytes that can never execute.
  status              text NOT NULL CHECK (status IN ('pending', 'signed', 'succeeded', 'declined', 'abandoned')),
  digest              text,
  tx_bytes            text,
  signature           text,
  decline_reason      text,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
-- Exactly one successful charge per (plan, period, kind), whatever crashes.
CREATE UNIQUE INDEX billing_charges_paid ON billing_charges (plan_id, period_key, kind) WHERE status = 'succeeded';
-- At most one charge in flight per plan: CHARGE_IN_PROGRESS.
CREATE UNIQUE INDEX billing_charges_in_flight ON billing_charges (plan_id) WHERE status IN ('pending', 'signed');
CREATE INDEX billing_charges_plan ON billing_charges (plan_id, created_at DESC);

CREATE TABLE plan_transitions (
  id                  text PRIMARY KEY,
  plan_id             text NOT NULL REFERENCES onchain_plans (id),
  from_state          text,
  to_state            text NOT NULL,
  trigger             text NOT NULL,
  actor               text NOT NULL CHECK (actor IN ('owner', 'billing')),
  reason              text NOT NULL,
  -- The same cause never writes two rows (a retried pass, a repeated request).
  idempotency_key     text NOT NULL UNIQUE,
  at                  timestamptz NOT NULL,
  -- Insertion order: transitions at the same instant (activate, first charge) keep their order.
  seq                 bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX plan_transitions_plan ON plan_transitions (plan_id, seq);

-- Emails to the owner: written in the same transaction as their cause, sent afterwards.
CREATE TABLE billing_emails (
  id                  text PRIMARY KEY,
  plan_id             text NOT NULL REFERENCES onchain_plans (id),
  kind                text NOT NULL CHECK (kind IN ('renewal_reminder', 'charge_failed')),
  idempotency_key     text NOT NULL UNIQUE,
  recipient           text NOT NULL,
  subject             text NOT NULL,
  body                text NOT NULL,
  created_at          timestamptz NOT NULL,
  sent_at             timestamptz
);
CREATE INDEX billing_emails_unsent ON billing_emails (created_at) WHERE sent_at IS NULL;

-- A card subscription set by an operator (`suigw admin card-subscription`): the other payment
-- method of Billing rule 1 (STRIPE_SUBSCRIPTION_ACTIVE).
ALTER TABLE organizations ADD COLUMN card_subscription_active boolean NOT NULL DEFAULT false;
