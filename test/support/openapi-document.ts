import { afterAll, beforeAll } from 'vitest';
import { createTestApp, type TestApp } from './test-app.js';

/** An OpenAPI document, walked by key in assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document of any shape
export type OpenApiDocument = any;

export interface GatewayOpenApi {
  /** The test app the document was read from (after beforeAll). */
  readonly app: TestApp['app'];
  readonly document: OpenApiDocument;
  /** The operation of `'get /v1/path/{id}'` (method in lower case, then the OpenAPI path), or undefined. */
  operation(entry: string): OpenApiDocument;
}

/**
 * Registers, in the calling describe block, a test app built before its tests and closed after
 * them, and `/v1/openapi.json` read from it once.
 */
export function useGatewayOpenApi(): GatewayOpenApi {
  let testApp: TestApp | undefined;
  let document: OpenApiDocument;
  beforeAll(async () => {
    testApp = await createTestApp();
    document = (await testApp.app.inject({ url: '/v1/openapi.json' })).json();
  });
  afterAll(async () => {
    await testApp?.close();
  });
  return {
    get app() {
      if (!testApp) throw new Error('useGatewayOpenApi: the app is built in beforeAll');
      return testApp.app;
    },
    get document() {
      return document;
    },
    operation(entry) {
      const [method, path] = entry.split(' ') as [string, string];
      return document.paths[path]?.[method];
    },
  };
}
