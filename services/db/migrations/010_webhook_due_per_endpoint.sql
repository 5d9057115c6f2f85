-- A claim of due webhook deliveries reads each live webhook's oldest due deliveries (at most a
-- few per endpoint) through this index, instead of ranking every due delivery of every tenant:
-- one tenant's backlog (a receiver that never answers, 20 webhooks × every event) costs the
-- other tenants' deliveries nothing (services/webhooks/delivery/deliveries.ts, claimDueDeliveries).
CREATE INDEX webhook_deliveries_due_per_webhook ON webhook_deliveries (webhook_id, next_attempt_at, created_seq) WHERE status = 'pending';
