import { z } from 'zod';
import { STREAM_TYPES, fromCheckpointSchema } from '../../streams/index.js';
import { DELIVERY_STATUSES } from '../delivery/deliveries.js';

/** Example values shown in the OpenAPI document (checked against their schemas in a test). */
export const examples = {
  CreateWebhookRequest: {
    url: 'https://hooks.example.com/sui',
    type: 'coin',
    filters: { coinTypes: ['0x2::sui::SUI'] },
  },
  CreatedWebhook: {
    id: 'wh_5Hq2mXbW8kTn3LpVcR7dYs',
    url: 'https://hooks.example.com/sui',
    type: 'coin',
    filters: { coinTypes: ['0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI'] },
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    fromCheckpoint: '1234568',
  },
  Webhook: {
    id: 'wh_5Hq2mXbW8kTn3LpVcR7dYs',
    url: 'https://hooks.example.com/sui',
    type: 'coin',
    filters: { coinTypes: ['0x0000000000000000000000000000000000000000000000000000000000000002::sui::SUI'] },
    enabled: true,
    paused: false,
    disabledReason: null,
    createdAt: '2026-11-22T12:00:00.000Z',
  },
  UpdateWebhookRequest: { url: 'https://hooks.example.com/sui/v2', enabled: true },
  RotatedWebhookSecret: {
    id: 'wh_5Hq2mXbW8kTn3LpVcR7dYs',
    secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
    previousSecretExpiresAt: '2026-11-23T12:00:00.000Z',
  },
  WebhookDelivery: {
    id: 'msg_2ZtVbq6WkRm9XcLp4NdHs',
    eventType: 'coin',
    status: 'pending',
    attempts: 2,
    responseStatus: 503,
    error: 'HTTP 503',
    lastAttemptAt: '2026-11-22T12:00:05.000Z',
    nextAttemptAt: '2026-11-22T12:05:05.000Z',
    createdAt: '2026-11-22T12:00:00.000Z',
  },
} as const;

export const webhookIdSchema = z.string().min(1).max(64);
export const webhookUrlSchema = z.string().trim().min(1).max(2_048).meta({ description: 'The endpoint: https (http only where allowed), a public address unless allowed by configuration.' });

export const CreatedWebhook = z.object({
  id: z.string(),
  url: z.string(),
  type: z.enum(STREAM_TYPES),
  filters: z.record(z.string(), z.unknown()),
  secret: z.string().meta({ description: 'The Standard Webhooks signing secret (`whsec_` + base64). Shown once, in this response only.' }),
  fromCheckpoint: fromCheckpointSchema,
}).meta({ id: 'CreatedWebhook', examples: [examples.CreatedWebhook] });

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  type: z.enum(STREAM_TYPES),
  filters: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
  paused: z.boolean().meta({ description: 'Beyond the plan’s webhook count (a plan ended): nothing is queued or delivered until the plan allows it again.' }),
  disabledReason: z.enum(['gone', 'manual']).nullable().meta({ description: '`gone`: the endpoint answered 410; `manual`: PATCH enabled=false.' }),
  createdAt: z.string(),
}).meta({ id: 'Webhook', examples: [examples.Webhook] });
export type WebhookView = z.infer<typeof Webhook>;

export const RotatedWebhookSecret = z.object({
  id: z.string(),
  secret: z.string().meta({ description: 'The new signing secret, shown once.' }),
  previousSecretExpiresAt: z.string().meta({ description: 'Until then deliveries carry a signature with the previous secret too.' }),
}).meta({ id: 'RotatedWebhookSecret', examples: [examples.RotatedWebhookSecret] });

export const WebhookDelivery = z.object({
  id: z.string().meta({ description: 'The message id, sent as `webhook-id` on every attempt.' }),
  eventType: z.enum(STREAM_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable().meta({ description: 'HTTP status of the last attempt; null: no answer (timeout, refused address, connection error) or not attempted yet.' }),
  error: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
}).meta({ id: 'WebhookDelivery', examples: [examples.WebhookDelivery] });
