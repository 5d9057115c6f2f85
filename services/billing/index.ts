import type { App, Capability } from '../route-contract/index.js';
import type { BillingService } from './billing-service.js';
import { registerBillingRoutes } from './routes/billing-routes.js';

export { BillingService, MAINNET_ALLOWANCE_PROTOCOL_VERSION, type BillingServiceDeps } from './billing-service.js';
export { BillingPass, type PassReport } from './billing-pass.js';
export { Charger } from './charger.js';
export { ChargingLock } from './charging-lock.js';
export { startBillingScheduler } from './scheduler.js';
export { SuiChain, ChainUnavailable, type Chain, type BillingNetwork } from './chain/index.js';
export { SmtpMailer, OutboxMailer, type Mailer, type Email } from './mail/index.js';
export { TRANSITIONS, PLAN_STATES, type PlanState } from './domain/plan-state.js';
export { MONTHLY_PRICE, periodPrice, PAID_TIERS } from './domain/prices.js';
export { chargeDate } from './domain/periods.js';

/** The on-chain billing API (spec: "On-chain billing"), registered once per network. */
export function billingCapability(service: BillingService): Capability {
  return (app: App) => registerBillingRoutes(app, service);
}
