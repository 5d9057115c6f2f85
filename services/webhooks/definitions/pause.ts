import type { Database } from '../../db/index.js';
import { pausedAcrossOrganizations } from '../../plans/index.js';
import { webhooksDb } from './store.js';

/**
 * The webhooks the plan-end pause rule switches off now (the rule streams use too): per
 * organization, live webhooks oldest first, those beyond the plan's webhook count. A paused
 * webhook queues nothing and attempts nothing until the plan allows it again.
 */
export async function pausedWebhookIds(database: Database): Promise<Set<string>> {
  const rows = await webhooksDb(database).selectFrom('webhooks as w')
    .innerJoin('organizations as o', 'o.id', 'w.organization_id')
    .select(['w.id', 'w.organization_id', 'o.tier', 'o.subscription_plan', 'o.subscription_status'])
    .where('w.deleted_at', 'is', null).orderBy('w.created_seq').execute();
  return pausedAcrossOrganizations(rows, (plan) => plan.webhooks);
}
