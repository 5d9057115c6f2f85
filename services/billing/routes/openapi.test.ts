import { describe, expect, it } from 'vitest';
import { useGatewayOpenApi } from '../../../test/support/openapi-document.js';
import { activateBody, changeBody, examples, planViewSchema, plansSchema, prepareBody } from '../schemas.js';

const BILLING_PATHS = [
  'get /v1/billing/plans', 'post /v1/billing/onchain/prepare', 'post /v1/billing/onchain/activate',
  'get /v1/billing/onchain', 'post /v1/billing/onchain/change', 'post /v1/billing/onchain/cancel',
];

describe('on-chain billing in the OpenAPI document', () => {
  const openApi = useGatewayOpenApi();

  it.each(BILLING_PATHS)('%s: a summary, its success schema, 401/403 and key security', (entry) => {
    const operation = openApi.operation(entry);
    expect(operation, entry).toBeDefined();
    expect(operation.summary).toEqual(expect.any(String));
    expect(operation.tags).toEqual(['billing']);
    expect(operation.responses['200'].content['application/json'].schema).toBeDefined();
    for (const status of ['401', '403']) expect(operation.responses[status], `${entry} ${status}`).toBeDefined();
    expect(operation.security).not.toEqual([]);
  });

  it('request and response schemas carry examples', () => {
    for (const id of ['BillingPlans', 'BillingPrepareRequest', 'BillingActivateRequest', 'BillingChangeRequest', 'OnchainPlan']) {
      expect(openApi.document.components.schemas[id]?.examples, id).toHaveLength(1);
    }
  });

  it('every example is valid against its own schema', () => {
    expect(() => plansSchema.strict().parse(examples.plans)).not.toThrow();
    expect(() => planViewSchema.strict().parse(examples.plan)).not.toThrow();
    expect(() => prepareBody.parse(examples.prepareRequest)).not.toThrow();
    expect(() => activateBody.parse(examples.activateRequest)).not.toThrow();
    expect(() => changeBody.parse(examples.changeRequest)).not.toThrow();
  });
});
