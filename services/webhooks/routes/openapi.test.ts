import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { useGatewayOpenApi } from '../../../test/support/openapi-document.js';
import * as schemas from './schemas.js';

const WEBHOOK_PATHS = [
  'post /v1/webhooks', 'get /v1/webhooks', 'get /v1/webhooks/{id}', 'patch /v1/webhooks/{id}', 'delete /v1/webhooks/{id}',
  'post /v1/webhooks/{id}/rotate-secret', 'get /v1/webhooks/{id}/deliveries', 'post /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
];

describe('webhooks in the OpenAPI document', () => {
  const openApi = useGatewayOpenApi();

  it.each(WEBHOOK_PATHS)('%s: a summary, its success schema, 401/403/404 and key security', (entry) => {
    const operation = openApi.operation(entry);
    expect(operation, entry).toBeDefined();
    expect(operation.summary).toEqual(expect.any(String));
    expect(operation.tags).toEqual(['webhooks']);
    const success = operation.responses['200'] ?? operation.responses['201'];
    expect(success.content['application/json'].schema).toBeDefined();
    for (const status of ['401', '403', '404']) expect(operation.responses[status], `${entry} ${status}`).toBeDefined();
    expect(operation.security).not.toEqual([]);
  });

  it('request and response schemas carry examples', () => {
    for (const id of ['CreateWebhookRequest', 'CreatedWebhook', 'Webhook', 'UpdateWebhookRequest', 'RotatedWebhookSecret', 'WebhookDelivery']) {
      expect(openApi.document.components.schemas[id]?.examples, id).toHaveLength(1);
    }
  });

  it('every response example is valid against its own schema', () => {
    const bySchema: Record<string, z.ZodType> = {
      CreatedWebhook: schemas.CreatedWebhook, Webhook: schemas.Webhook, RotatedWebhookSecret: schemas.RotatedWebhookSecret, WebhookDelivery: schemas.WebhookDelivery,
    };
    for (const [name, schema] of Object.entries(bySchema)) {
      expect(() => (schema as z.ZodObject).strict().parse(schemas.examples[name as keyof typeof schemas.examples]), name).not.toThrow();
    }
  });
});
