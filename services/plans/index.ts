export { isTier, parseTier, TIERS, UnknownTierError, type Tier } from './tiers.js';
export * from './plan-table.js';
export { readPlansFile } from './plans-file.js';
export { pausedAcrossOrganizations, pausedBeyondPlan } from './plan-pause.js';
export { formatMicroUsd, MICRO_USD_PER_CREDIT } from './credit-price.js';
