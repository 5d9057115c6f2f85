-- A webhook delivery names the chain of its checkpoint (the upstream's chain identifier, as the
-- ingest cursor and the Warp stream log's `chain|sequence` guard do): after a wiped devnet or
-- testnet the new chain counts from 0 again, and (webhook, checkpoint, position) alone made its
-- events look like the old chain's deliveries, so they were never queued. Unique per webhook,
-- chain, checkpoint and position now. Rows written before take their network's current cursor
-- chain (the chain they were ingested from unless a wipe happened before this migration); ''
-- where none is known, which is also what an ingest that has not read its chain yet writes.
ALTER TABLE webhook_deliveries ADD COLUMN chain text NOT NULL DEFAULT '';
UPDATE webhook_deliveries AS d SET chain = c.chain_id
  FROM webhooks AS w, stream_ingest_cursors AS c
  WHERE w.id = d.webhook_id AND c.network = w.network AND c.chain_id IS NOT NULL;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_id_checkpoint_position_key;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_source_key UNIQUE (webhook_id, chain, checkpoint, position);
