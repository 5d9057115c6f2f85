import { z } from 'zod';

/** Examples shown in the OpenAPI document (docs/billing.md has the whole flow). */
export const examples = {
  plans: {
    networks: [{
      network: 'testnet', enabled: true,
      spender: '0x5f1c0ad5c0b6b7fb8c1b8f3d3b3e3a8e7e7f0c1d2e3f40516273849505162738',
      treasury: '0x8a3b5f2e4c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f',
      packageId: '0x3323a57d63de0ad091de0fbc2d389545a61cab91711e5e77e3f990f83b3b3c39',
      configId: '0x1b6f0e5d4c3b2a19f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281',
      acceptedCoins: [{ coinType: '0x631231d9b526cbcbcc75ffca7e4cc84d9ea4365e84802f94aa2db2ce3690920f::usdc::USDC', symbol: 'USDC', decimals: 6 }],
    }],
    tiers: [
      { tier: 'team', monthlyPrice: '49000000', annualPrice: '490000000' },
      { tier: 'growth', monthlyPrice: '199000000', annualPrice: '1990000000' },
    ],
    prefundPeriods: { min: 0, max: 12, default: 1 },
  },
  prepareRequest: { network: 'testnet', tier: 'team', interval: 'month', funderAddress: '0x6cdaa1e9d269635c8847831f0d1b5c9c2e066f810ba6b3cc0ba53a8cea1e11b2', prefundPeriods: 1 },
  activateRequest: { network: 'testnet', tier: 'team', allowanceId: '0x9c1f3a2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8', notifyEmail: 'owner@example.com' },
  changeRequest: { tier: 'growth', when: 'now', allowanceId: '0x4e2d1c0b9a8f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d5c4b3a29180f7e6d' },
  plan: {
    id: 'plan_3vQB7w1mZrP2kdeH5',
    state: 'active',
    network: 'testnet',
    plan: { tier: 'team', interval: 'month', price: '49000000' },
    pendingChange: null,
    allowance: { id: '0x9c1f3a2b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8', capId: null },
    funder: '0x6cdaa1e9d269635c8847831f0d1b5c9c2e066f810ba6b3cc0ba53a8cea1e11b2',
    billingBalance: '49000000',
    currentPeriod: { start: '2027-01-31T10:00:00.000Z', end: '2027-02-28T10:00:00.000Z' },
    nextCharge: { at: '2027-02-28T10:00:00.000Z', amount: '49000000' },
    failedAttempts: 0,
    ended: null,
    lastCharges: [{ id: 'chg_7TqX2', kind: 'first', tier: 'team', amount: '49000000', status: 'succeeded', digest: 'Hx2X9vV4m3H4b1k5eX7Lq2Yp9cWb3z6RtS8uQe1F5g7J', declineReason: null, at: '2027-01-31T10:00:00.000Z' }],
  },
} as const;

const micro = z.string().regex(/^\d+$/).meta({ description: 'micro-USDC (6 decimals), as a decimal string' });
const paidTier = z.enum(['team', 'growth', 'professional', 'business']);
const network = z.enum(['mainnet', 'testnet']);
// What the service answers: any network it serves (devnet too, when configured).
const servedNetwork = z.enum(['mainnet', 'testnet', 'devnet']);
const interval = z.enum(['month', 'year']);
const objectId = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/).meta({ description: 'a Sui object id' });

export const plansSchema = z.object({
  networks: z.array(z.object({
    network: servedNetwork, enabled: z.boolean().meta({ description: 'false on mainnet before protocol version 138 (ONCHAIN_BILLING_DISABLED)' }),
    spender: z.string(), treasury: z.string(), packageId: z.string(), configId: z.string(),
    acceptedCoins: z.array(z.object({ coinType: z.string(), symbol: z.string(), decimals: z.number().int() })),
  })),
  tiers: z.array(z.object({ tier: paidTier, monthlyPrice: micro, annualPrice: micro })),
  prefundPeriods: z.object({ min: z.number().int(), max: z.number().int(), default: z.number().int() }),
}).meta({ id: 'BillingPlans', examples: [examples.plans] });

// Tiers are strings here, not an enum: any other tier (enterprise, free) is PLAN_NOT_AVAILABLE, not a schema error.
export const prepareBody = z.strictObject({
  network,
  tier: z.string().max(32),
  interval: interval.default('month'),
  funderAddress: z.string().max(100).meta({ description: 'the wallet that pays and signs' }),
  prefundPeriods: z.number().int().min(0).max(12).default(1),
  coinType: z.string().max(300).optional().meta({ description: 'only USDC is accepted (COIN_NOT_ACCEPTED otherwise)' }),
}).meta({ id: 'BillingPrepareRequest', examples: [examples.prepareRequest] });

export const preparedSchema = z.object({
  txBytes: z.string().meta({ description: 'base64 TransactionData: the funder signs and executes it, paying its gas' }),
  network: servedNetwork, tier: paidTier, interval, funderAddress: z.string(),
  allowance: z.object({ name: z.string(), coinType: z.string(), periodLimit: micro, window: z.enum(['calendar_month', '12_months']), spender: z.string(), app: z.string() }),
  prefund: micro,
  preparedAt: z.string(),
}).meta({ id: 'BillingPreparedTransaction' });

export const activateBody = z.strictObject({
  network,
  tier: z.string().max(32),
  interval: interval.default('month'),
  allowanceId: objectId,
  allowanceCapId: objectId.optional(),
  notifyEmail: z.email().max(320).optional().meta({ description: 'where renewal reminders and failed-charge emails go (ours: the spec does not say)' }),
}).meta({ id: 'BillingActivateRequest', examples: [examples.activateRequest] });

export const changeBody = z.strictObject({
  tier: z.string().max(32),
  when: z.enum(['next_renewal', 'now']),
  allowanceId: objectId.optional(),
}).meta({ id: 'BillingChangeRequest', examples: [examples.changeRequest] });

export const planViewSchema = z.object({
  id: z.string(),
  state: z.enum(['awaiting_first_charge', 'active', 'past_due', 'cancel_pending', 'ended']),
  network: servedNetwork,
  plan: z.object({ tier: paidTier, interval, price: micro }),
  pendingChange: z.object({ tier: paidTier, allowanceId: z.string().nullable(), at: z.literal('next_renewal') }).nullable(),
  allowance: z.object({ id: z.string(), capId: z.string().nullable() }),
  funder: z.string(),
  billingBalance: micro.nullable().meta({ description: "the funder's USDC address balance (what the allowance can take); null in the answer of activate, change or cancel when the node could not be read after the plan was written (GET answers 503 BALANCE_UNAVAILABLE then)" }),
  currentPeriod: z.object({ start: z.string(), end: z.string() }).nullable(),
  nextCharge: z.object({ at: z.string(), amount: micro }).nullable(),
  failedAttempts: z.number().int(),
  ended: z.object({
    at: z.string(), trigger: z.enum(['charge_failed', 'final_charge_failed', 'period_ended']).meta({ description: 'the first charge failed, the 7th failed charge, or a cancelled plan ran out' }),
    reason: z.string(),
  }).nullable().meta({ description: 'an ended plan (GET answers the last plan after it ended): when and why' }),
  lastCharges: z.array(z.object({
    id: z.string(), kind: z.enum(['first', 'renewal', 'upgrade']), tier: z.string(), amount: micro,
    status: z.enum(['pending', 'signed', 'succeeded', 'declined', 'abandoned']), digest: z.string().nullable(), declineReason: z.string().nullable(), at: z.string(),
  })),
}).meta({ id: 'OnchainPlan', examples: [examples.plan] });
