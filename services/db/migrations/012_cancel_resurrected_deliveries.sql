-- Disabling or deleting a webhook cancels its pending deliveries, but an attempt in flight at that
-- moment used to record its answer over the cancellation and set a failed delivery back to
-- pending (fixed in services/webhooks/delivery/deliveries.ts, recordAttempt). Those rows stayed
-- due for good (suigw_webhook_deliveries_due, suigw_webhook_oldest_due_seconds) or were retried
-- after a re-enable. A disabled or deleted webhook has no other way to hold a pending delivery:
-- cancel them, as the disable or delete did.
UPDATE webhook_deliveries AS d SET status = 'cancelled', next_attempt_at = NULL, claimed_until = NULL
FROM webhooks AS w
WHERE w.id = d.webhook_id AND d.status = 'pending' AND (w.deleted_at IS NOT NULL OR NOT w.enabled);
