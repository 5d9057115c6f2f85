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
