import type { AllowanceRecord, JsonValue } from './types.js';
import { MoveStructs } from './move-values.js';

/** Contents (BCS) and JSON of an allowance object at the state of its record. */
export function allowanceObjectState(record: AllowanceRecord): { contents: Uint8Array; json: JsonValue } {
  const contents = MoveStructs.Allowance.serialize({
    id: record.objectId,
    funder: record.funder,
    spender: record.spender ?? null,
    app: record.app ?? null,
    lifetimeCap: record.lifetimeCap,
    lifetimeSpent: record.lifetimeSpent,
    monthlyLimit: record.monthlyLimit,
    month: record.month,
    monthSpent: record.monthSpent,
    expirationMs: record.expirationTimestampMs ?? null,
    name: record.name,
    startMs: record.startMs,
    windowMonths: record.windowMonths,
    windowStartMs: record.windowStartMs,
  }).toBytes();
  const json: JsonValue = {
    id: record.objectId,
    funder: record.funder,
    spender: record.spender ?? null,
    app: record.app ?? null,
    lifetime_cap: record.lifetimeCap.toString(),
    lifetime_spent: record.lifetimeSpent.toString(),
    monthly_limit: record.monthlyLimit.toString(),
    month: record.month,
    month_spent: record.monthSpent.toString(),
    expiration_ms: record.expirationTimestampMs?.toString() ?? null,
    name: record.name,
    start_ms: record.startMs.toString(),
    window_months: record.windowMonths,
    window_start_ms: record.windowStartMs.toString(),
  };
  return { contents, json };
}

/** `YYYYMM` of a timestamp, UTC. */
export function monthOf(timestampMs: bigint): number {
  const date = new Date(Number(timestampMs));
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
}
