import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../core/index.js';
import type { Principal } from '../../identity/index.js';
import { planOf, pausedBeyondPlan } from '../../plans/index.js';
import type { WebhookRouteDeps } from './deps.js';
import { organizationWebhookIds, type WebhookDefinition, type WebhookOwner } from '../definitions/store.js';
import type { WebhookView } from './schemas.js';

export function caller(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('AUTH_CONTEXT_MISSING');
  return request.principal;
}

/** The caller's organization on the network the request was sent to. */
export function owner(request: FastifyRequest): WebhookOwner {
  return { organizationId: caller(request).organization.id, network: request.network };
}

/** The webhooks of the caller's organization that the plan-end pause rule pauses now. */
export async function pausedFor(deps: WebhookRouteDeps, request: FastifyRequest): Promise<Set<string>> {
  const principal = caller(request);
  const ids = await organizationWebhookIds(deps.database, principal.organization.id);
  return new Set(pausedBeyondPlan(ids, planOf(principal.organization).webhooks));
}

export function publicWebhook(webhook: WebhookDefinition, paused: ReadonlySet<string>): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    type: webhook.type,
    filters: webhook.filters as Record<string, unknown>,
    enabled: webhook.enabled,
    paused: paused.has(webhook.id),
    disabledReason: webhook.disabledReason,
    createdAt: webhook.createdAt,
  };
}
