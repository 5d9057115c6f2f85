import { planOfRow, type Plan, type PlanColumns } from './plan-table.js';

/**
 * The plan-end pause (spec, plan states: "ended: organization returns to Free; webhooks and
 * streams above Free limits pause"), as ONE rule for every counted item (streams, webhooks):
 * of an organization's items, oldest first, the first `limit` keep working and the rest, the
 * newest, are paused. Nothing is deleted or rewritten: the rule is applied whenever an item is
 * used (a stream connection, a webhook's matching and delivery), so an upgrade, or deleting
 * older items, resumes the paused ones at once. docs/webhooks.md#plan-end-pause.
 */
export function pausedBeyondPlan<T>(oldestFirst: readonly T[], limit: number): T[] {
  return oldestFirst.slice(Math.max(0, limit));
}

/** An item of an organization, with the columns of its organization's row that decide the plan. */
export interface PlannedItem extends PlanColumns {
  id: string;
  organization_id: string;
}

/**
 * The same rule over the items of many organizations at once (rows oldest first), each
 * organization's plan read from its row; `count` picks the plan's number for the items.
 */
export function pausedAcrossOrganizations(oldestFirst: readonly PlannedItem[], count: (plan: Plan) => number): Set<string> {
  const byOrganization = new Map<string, { limit: number; ids: string[] }>();
  for (const row of oldestFirst) {
    let entry = byOrganization.get(row.organization_id);
    if (!entry) byOrganization.set(row.organization_id, (entry = { limit: count(planOfRow(row)), ids: [] }));
    entry.ids.push(row.id);
  }
  const paused = new Set<string>();
  for (const { limit, ids } of byOrganization.values()) for (const id of pausedBeyondPlan(ids, limit)) paused.add(id);
  return paused;
}
