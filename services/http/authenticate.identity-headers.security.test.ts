import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { IDENTITY_HEADER_NAMES, type Authenticator } from '../identity/index.js';
import { authenticationStage } from './authenticate.js';
import type { RouteFacts } from './route-facts.js';
import { RequestPipeline } from '../pipeline/index.js';

const unmatched = { url: undefined, config: {} } as unknown as RouteFacts;
const neverCalled = {} as Authenticator;

/** Identity headers (docs/envoy.md) only ever come from Envoy: the gateway takes them off every request. */
describe('identity headers are taken off every request', () => {
  it('removes each one a client sent, whether or not a route matched', async () => {
    const headers: Record<string, string> = { host: 'gw', 'x-api-key': 'k' };
    for (const name of IDENTITY_HEADER_NAMES) headers[name] = 'forged';
    await authenticationStage(new RequestPipeline({ authenticator: neverCalled, meter: undefined }))({ headers } as unknown as FastifyRequest, unmatched);
    expect(headers).toEqual({ host: 'gw', 'x-api-key': 'k' });
  });

  it('leaves the other headers alone when there are none', async () => {
    const headers: Record<string, string> = { host: 'gw', origin: 'https://a.example' };
    await authenticationStage(new RequestPipeline({ authenticator: neverCalled, meter: undefined }))({ headers } as unknown as FastifyRequest, unmatched);
    expect(headers).toEqual({ host: 'gw', origin: 'https://a.example' });
  });
});
