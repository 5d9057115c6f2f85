import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError, errorResponses } from '../../core/index.js';
import type { App } from '../../route-contract/index.js';
import type { BillingService } from '../billing-service.js';
import { activateBody, changeBody, planViewSchema, plansSchema, prepareBody, preparedSchema } from '../schemas.js';

const manageFree = { auth: { scope: 'manage' as const }, cost: 'free' as const };

function organizationOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) throw new ApiError('AUTH_CONTEXT_MISSING');
  return principal.organization.id;
}

const BILLING_ERRORS = 'Billing codes: see docs/billing.md, Errors.';

/** The spec's "On-chain billing" table: six routes, scope manage, not metered. */
export function registerBillingRoutes(app: App, service: BillingService): void {
  app.get('/v1/billing/plans', {
    config: manageFree,
    schema: {
      summary: 'On-chain plans: networks, spender, treasury, package, accepted coins, prices',
      tags: ['billing'],
      response: { 200: z.object({ data: plansSchema }), ...errorResponses(401, 403) },
    },
  }, async () => ({ data: await service.plans() }));

  app.post('/v1/billing/onchain/prepare', {
    config: manageFree,
    schema: {
      summary: 'Build the transaction that sets up an on-chain plan',
      description: 'One transaction: prefund into the USDC address balance, propose an allowance named for the organization with the plan price as its per-period limit, have the billing module issue it. ' +
        `Errors: 400 PLAN_NOT_AVAILABLE, INVALID_FUNDER_ADDRESS, COIN_NOT_ACCEPTED, TX_BUILD_FAILED, PLAN_UNCHANGED; 403 ONCHAIN_BILLING_DISABLED; 409 STRIPE_SUBSCRIPTION_ACTIVE, PREPAID_BALANCE_PRESENT, ONCHAIN_SUBSCRIPTION_EXISTS; 503 BALANCE_UNAVAILABLE. ${BILLING_ERRORS}`,
      tags: ['billing'],
      body: prepareBody,
      response: { 200: z.object({ data: preparedSchema }), ...errorResponses(400, 401, 403, 409, 415, 503) },
    },
  }, async (request) => ({ data: await service.prepare(organizationOf(request), request.body) }));

  app.post('/v1/billing/onchain/activate', {
    config: manageFree,
    schema: {
      summary: 'Verify the allowance on chain, start the plan, take the first charge',
      description: 'Checks coin, spender, app, funder, organization name, limit, start and expiry (each its ALLOWANCE_* code), then takes the first charge at once. ' +
        `Activating the same tier and interval of a cancelled plan, on its network, resumes it. ${BILLING_ERRORS}`,
      tags: ['billing'],
      body: activateBody,
      response: { 200: z.object({ data: planViewSchema }), ...errorResponses(400, 401, 403, 404, 409, 415, 503) },
    },
  }, async (request) => ({ data: await service.activate(organizationOf(request), request.body) }));

  app.get('/v1/billing/onchain', {
    config: manageFree,
    schema: {
      summary: 'The on-chain plan: state, plan, allowance, funder, billing balance, next charge, last charges',
      tags: ['billing'],
      response: { 200: z.object({ data: planViewSchema }), ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => ({ data: await service.current(organizationOf(request)) }));

  app.post('/v1/billing/onchain/change', {
    config: manageFree,
    schema: {
      summary: 'Change the tier',
      description: 'Downgrades apply at the next renewal (DOWNGRADE_NEEDS_RENEWAL with `now`). Upgrades need a new allowance (`prepare` with the new tier); `now` charges the new price minus the unused part of the period and starts a new period today. ' +
        `Revoke the old allowance only after this returns 200. ${BILLING_ERRORS}`,
      tags: ['billing'],
      body: changeBody,
      response: { 200: z.object({ data: planViewSchema }), ...errorResponses(400, 401, 403, 404, 409, 415, 503) },
    },
  }, async (request) => ({ data: await service.change(organizationOf(request), request.body) }));

  app.post('/v1/billing/onchain/cancel', {
    config: manageFree,
    schema: {
      summary: 'Cancel: access continues to the end of the period',
      tags: ['billing'],
      response: { 200: z.object({ data: planViewSchema }), ...errorResponses(401, 403, 404, 409) },
    },
  }, async (request) => ({ data: await service.cancel(organizationOf(request)) }));
}
