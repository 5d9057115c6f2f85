import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './test-app.js';

/** One management call through HTTP (`app.inject`), for the tests beside the routes. */
export interface CallOptions {
  key?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  network?: string;
  /** The client's address (default: light-my-request's 127.0.0.1). */
  remoteAddress?: string;
}

export interface CallResult {
  status: number;
  body: Record<string, unknown> & { data?: unknown; code?: string; error?: string };
  headers: LightMyRequestResponse['headers'];
}

export async function call(t: TestApp, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  const response = await t.app.inject({
    method: method as 'GET',
    url: `/${options.network ?? 'mainnet'}${path}`,
    headers,
    ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  });
  return { status: response.statusCode, body: response.body === '' ? {} : response.json(), headers: response.headers };
}

/** Creates a key with the admin key (or `as`) and returns the 201 body's data. */
export async function createKeyVia(
  t: TestApp,
  input: Record<string, unknown>,
  as: string = t.adminKey,
): Promise<{ id: string; apiKey: string; scopes: string[]; expiresAt: string; projectId: string }> {
  const response = await call(t, 'POST', '/v1/keys', {
    key: as,
    body: { name: 'k', projectId: t.projects.mainnet, ...input },
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as { id: string; apiKey: string; scopes: string[]; expiresAt: string; projectId: string };
}
