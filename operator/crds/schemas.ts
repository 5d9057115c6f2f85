import { z } from 'zod';
import { NETWORKS } from '../../services/core/index.js';
import { SCOPES, DEFAULT_KEY_LIFETIME_DAYS, MAX_KEY_LIFETIME_DAYS } from '../../services/identity/index.js';
import { TIERS } from '../../services/plans/index.js';
import {
  allowedOriginsInputSchema,
  idSchema,
  keyNameSchema,
  projectNameSchema,
  rateLimitInputSchema,
} from '../../services/management/schemas.js';

/**
 * The custom resources' specs. The management API's request schemas are reused field by field,
 * so a CR and an API call are refused for the same reasons; `crds/generated/` is derived from
 * these (scripts/crd-gen.ts) and never edited by hand.
 */

export const API_GROUP = 'suigw.io';
export const API_VERSION = 'v1alpha1';

/** A Kubernetes object name (DNS-1123 subdomain) naming a resource in the same namespace. */
const objectNameSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a lowercase DNS-1123 name');

export const projectSpecSchema = z.strictObject({
  organizationId: idSchema.regex(/^org_/, 'must be an organization id (org_…)').meta({ description: 'The organization that owns the project.' }),
  displayName: projectNameSchema.optional().meta({ description: "The project's name; default: the resource's name." }),
  network: z.enum(NETWORKS).meta({ description: 'The network the project serves.' }),
});

export const apiKeySpecSchema = z.strictObject({
  project: objectNameSchema.meta({ description: 'The Project resource (same namespace) the key belongs to.' }),
  displayName: keyNameSchema.optional().meta({ description: "The key's name; default: the resource's name." }),
  scopes: z.array(z.enum(SCOPES)).min(1).max(16).default(['data']).meta({ description: 'Any of data, streams, manage, zkLogin.' }),
  allowedOrigins: allowedOriginsInputSchema.default([]),
  rateLimit: rateLimitInputSchema.optional(),
  expiresInDays: z.number().int().min(1).max(MAX_KEY_LIFETIME_DAYS).default(DEFAULT_KEY_LIFETIME_DAYS).meta({ description: 'Lifetime from creation, 1-365 days.' }),
  enabled: z.boolean().default(true).meta({ description: 'false disables the key (for good, as in the API).' }),
  secretName: objectNameSchema.optional().meta({ description: 'The Secret that receives the key value; default: <name>-apikey.' }),
});

const HEX_ID = /^0x[0-9a-fA-F]{1,64}$/;

export const warpStreamSpecSchema = z
  .strictObject({
    project: objectNameSchema.meta({ description: 'The Project resource (same namespace) the stream belongs to.' }),
    type: z.enum(['event', 'address', 'coin', 'object']),
    filter: z.string().min(1).max(300).meta({ description: 'Event type, address, coin type or object id, by type.' }),
    enabled: z.boolean().default(true),
    expectedEventsPerSecond: z.number().int().min(0).max(100_000).default(10).meta({ description: 'Sizes the stream workers (docs/kubernetes.md).' }),
  })
  .superRefine((spec, ctx) => {
    if ((spec.type === 'address' || spec.type === 'object') && !HEX_ID.test(spec.filter)) {
      ctx.addIssue({ code: 'custom', path: ['filter'], message: 'an address or object filter is a 0x-prefixed hex id' });
    }
  });

export const onchainPlanSpecSchema = z.strictObject({
  organizationId: idSchema.regex(/^org_/, 'must be an organization id (org_…)'),
  network: z.enum(NETWORKS),
  tier: z.enum(TIERS.filter((tier) => tier !== 'wallet' && tier !== 'free') as ['team', ...string[]]),
  billingDay: z.number().int().min(1).max(31).default(1).meta({ description: 'Day of month the charge is due; short months charge on their last day.' }),
  suspend: z.boolean().default(false).meta({
    description:
      "true suspends this plan's own billing CronJob only. The Helm chart's hourly pass over every organization (CronJob <release>-billing) still bills it: to stop its charges, cancel the plan (POST /v1/billing/onchain/cancel).",
  }),
});

export type ProjectSpec = z.output<typeof projectSpecSchema>;
export type ApiKeySpec = z.output<typeof apiKeySpecSchema>;
export type WarpStreamSpec = z.output<typeof warpStreamSpecSchema>;
export type OnchainPlanSpec = z.output<typeof onchainPlanSpecSchema>;

export interface Condition {
  /** `EnvoyAccepted` appears once an xDS client has answered: False while one rejects the config. */
  type: 'Ready' | 'Reconciled' | 'EnvoyAccepted';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

const conditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string(),
  message: z.string(),
  observedGeneration: z.number().int(),
  lastTransitionTime: z.string().meta({ format: 'date-time' }),
});

const commonStatus = {
  observedGeneration: z.number().int().optional(),
  conditions: z.array(conditionSchema).optional(),
};

export const statusSchemas = {
  Project: z.object({ ...commonStatus, projectId: z.string().optional(), slug: z.string().optional() }),
  ApiKey: z.object({
    ...commonStatus,
    keyId: z.string().optional(),
    secretName: z.string().optional(),
    network: z.string().optional(),
    projectId: z.string().optional(),
    expiresAt: z.string().optional(),
  }),
  WarpStream: z.object({ ...commonStatus, network: z.string().optional(), workers: z.string().optional() }),
  OnchainPlan: z.object({ ...commonStatus, cronJob: z.string().optional() }),
};

export type Kind = keyof typeof statusSchemas;

export const SPEC_SCHEMAS = {
  Project: projectSpecSchema,
  ApiKey: apiKeySpecSchema,
  WarpStream: warpStreamSpecSchema,
  OnchainPlan: onchainPlanSpecSchema,
} as const;
