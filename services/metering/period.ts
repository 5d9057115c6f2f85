/** The credit period: the calendar month in UTC. Credits replenish on the 1st, 00:00 UTC. */
export function creditPeriod(now: number): { startMs: number; replenishAtMs: number } {
  const date = new Date(now);
  return {
    startMs: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
    replenishAtMs: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
  };
}
