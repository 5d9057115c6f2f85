import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationService } from '../support/envoy-protos.js';
import { IDENTITY_HEADER_NAMES, IDENTITY_HEADERS } from '../../services/identity/index.js';
import { startEnvoyStack, type EnvoyStack } from '../support/envoy-stack.js';

const PATH = `/v1/objects/0x${'5'.repeat(64)}`;

/**
 * `suigw authz` as Envoy's ext_authz filter calls it, with hosts configured for the networks (as
 * in production) so the host → network mapping is exercised next to the `/{network}` prefix.
 */
describe('authz: ext_authz Check answers', () => {
  let s: EnvoyStack;
  beforeAll(async () => {
    s = await startEnvoyStack({ env: { SUIGW_MAINNET_HOST: 'mainnet.example', SUIGW_TESTNET_HOST: 'testnet.example' } });
  });
  afterAll(async () => s?.close());

  const headerMap = (options: { header: { key: string; value: string }; append_action: number }[]) =>
    Object.fromEntries(options.map((option) => [option.header.key, option.header.value]));

  it('allowed: signed identity headers that overwrite any the client sent, nothing removed', async () => {
    const caller = await s.newCaller();
    const answer = await s.check({ url: `/mainnet${PATH}`, headers: { 'x-api-key': caller.key, 'x-request-id': 'auth-1', [IDENTITY_HEADERS.organization]: 'org_forged' } });
    expect(answer.status.code).toBe(0);
    expect(answer.denied_response).toBeFalsy();
    const ok = answer.ok_response!;
    expect(ok.headers_to_remove).toEqual([]);
    expect(ok.headers.every((option) => option.append_action === 2)).toBe(true);
    const headers = headerMap(ok.headers);
    expect(Object.keys(headers).sort()).toEqual([...IDENTITY_HEADER_NAMES].sort());
    expect(headers).toMatchObject({
      [IDENTITY_HEADERS.organization]: caller.organizationId,
      [IDENTITY_HEADERS.keyId]: caller.keyId,
      [IDENTITY_HEADERS.network]: 'mainnet',
      [IDENTITY_HEADERS.scopes]: 'data,streams,manage,zkLogin',
      [IDENTITY_HEADERS.plan]: 'team',
    });
    const claims = s.identity.verify(headers[IDENTITY_HEADERS.token], { method: 'GET', path: `/mainnet${PATH}` });
    expect(claims).toMatchObject({ network: 'mainnet', requestId: 'auth-1', route: 'GET /v1/objects/:id', cost: 1, principal: { keyId: caller.keyId } });
  });

  it('the network comes from the host exactly as in the gateway', async () => {
    const mainnet = await s.newCaller();
    const testnet = await s.newCaller({ network: 'testnet' });
    const onTestnetHost = (key: string) => s.check({ url: PATH, headers: { host: 'testnet.example', 'x-api-key': key } });
    const allowed = await onTestnetHost(testnet.key);
    expect(headerMap(allowed.ok_response!.headers)[IDENTITY_HEADERS.network]).toBe('testnet');
    const refused = await onTestnetHost(mainnet.key);
    expect(refused.denied_response!.status.code).toBe(403);
    expect(JSON.parse(refused.denied_response!.body)).toMatchObject({ code: 'NETWORK_MISMATCH' });
    // The same request to the gateway itself: the same answer.
    const gateway = await s.inProcessAnswer({ url: PATH, headers: { host: 'testnet.example', 'x-api-key': mainnet.key } });
    expect(gateway.status).toBe(403);
    expect(gateway.body).toMatchObject({ code: 'NETWORK_MISMATCH' });
  });

  it('a host-addressed request reaches the trusting gateway with a token it accepts, answered as by the gateway alone', async () => {
    const caller = await s.newCaller();
    const request = { url: PATH, headers: { host: 'mainnet.example', 'x-api-key': caller.key, 'x-request-id': 'auth-host' } };
    const alone = await s.inProcessAnswer(request);
    expect(alone.status).toBe(200);
    // viaEnvoy forwards without the key: a 200 proves the token verified for the path as sent.
    expect(await s.viaEnvoy(request)).toEqual(alone);
  });

  it('public routes and unknown paths: allowed, with every identity header removed', async () => {
    for (const url of ['/health', '/mainnet/v1/health', '/mainnet/v1/no-such-route']) {
      const answer = await s.check({ url, headers: { [IDENTITY_HEADERS.token]: 'forged.token' } });
      expect(answer.status.code).toBe(0);
      expect(answer.ok_response).toEqual({ headers: [], headers_to_remove: IDENTITY_HEADER_NAMES, response_headers_to_add: [], query_parameters_to_set: [], query_parameters_to_remove: [], dynamic_metadata: null });
    }
  });

  it('denied: the spec\'s status, JSON body and request id', async () => {
    const answer = await s.check({ url: `/mainnet${PATH}`, headers: { 'x-request-id': 'auth-2' } });
    expect(answer.status.code).toBe(7);
    const denied = answer.denied_response!;
    expect(denied.status.code).toBe(401);
    expect(JSON.parse(denied.body)).toEqual({ error: 'Missing API key', requestId: 'auth-2' });
    expect(headerMap(denied.headers)).toEqual({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'auth-2' });
  });

  it('denied with an Origin on a route browsers may call: the CORS headers the gateway alone puts on its error; none on a management route', async () => {
    const origin = 'https://app.example';
    const denied = (await s.check({ url: `/mainnet${PATH}`, headers: { 'x-request-id': 'auth-cors', origin } })).denied_response!;
    expect(denied.status.code).toBe(401);
    const alone = await s.inProcess.inject({ url: `/mainnet${PATH}`, headers: { 'x-request-id': 'auth-cors', origin } });
    expect(alone.statusCode).toBe(401);
    const cors = ['access-control-allow-origin', 'access-control-expose-headers', 'vary'];
    expect(Object.fromEntries(cors.map((name) => [name, alone.headers[name]]))).toEqual({
      'access-control-allow-origin': origin,
      'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Svc-Credit-Remaining, X-Svc-Credit-Replenish-Date, X-Request-Id, Retry-After',
      vary: 'Origin',
    });
    expect(headerMap(denied.headers)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': 'auth-cors',
      ...Object.fromEntries(cors.map((name) => [name, alone.headers[name]])),
    });
    const management = (await s.check({ url: '/mainnet/v1/keys', headers: { 'x-request-id': 'auth-cors-keys', origin } })).denied_response!;
    expect(management.status.code).toBe(401);
    expect(headerMap(management.headers)).toEqual({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'auth-cors-keys' });
  });

  it('denied gRPC requests also carry grpc-status and grpc-message', async () => {
    const caller = await s.newCaller({ scopes: ['manage'] });
    const grpc = { 'content-type': 'application/grpc-web+proto' };
    const missing = headerMap((await s.check({ url: `/mainnet${PATH}`, headers: grpc })).denied_response!.headers);
    expect(missing).toMatchObject({ 'grpc-status': '16', 'grpc-message': 'Missing%20API%20key' });
    const scope = await s.check({ url: `/mainnet${PATH}`, headers: { ...grpc, 'x-api-key': caller.key } });
    expect(scope.denied_response!.status.code).toBe(403);
    expect(headerMap(scope.denied_response!.headers)).toMatchObject({ 'grpc-status': '7', 'grpc-message': encodeURIComponent("This operation needs the 'data' scope.") });
  });

  it('a check request without HTTP attributes: INVALID_ARGUMENT (Envoy then denies)', async () => {
    const client = new (authorizationService())(`127.0.0.1:${s.authzPort}`, credentials.createInsecure());
    try {
      const error = await new Promise<{ code: number }>((resolve) => client.Check!({}, (e: { code: number }) => resolve(e)));
      expect(error.code).toBe(3);
    } finally {
      client.close();
    }
  });

  it('a message that does not decode: INVALID_ARGUMENT on both services; a method a port does not serve: UNIMPLEMENTED', async () => {
    const CHECK = '/envoy.service.auth.v3.Authorization/Check';
    const SHOULD_RATE_LIMIT = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';
    const statusOf = (port: number, path: string, body: Buffer) => {
      const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
      return new Promise<number | undefined>((resolve) => {
        client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, body, new Metadata(), {}, (error: ServiceError | null) => {
          client.close();
          resolve(error?.code);
        });
      });
    };
    // Field 15 with wire type 7, which protobuf does not have.
    const malformed = Buffer.from([0x7f]);
    expect(await statusOf(s.authzPort, CHECK, malformed)).toBe(3);
    expect(await statusOf(s.rlsPort, SHOULD_RATE_LIMIT, malformed)).toBe(3);
    expect(await statusOf(s.authzPort, SHOULD_RATE_LIMIT, Buffer.alloc(0))).toBe(12);
    expect(await statusOf(s.rlsPort, CHECK, Buffer.alloc(0))).toBe(12);
    expect(await statusOf(s.authzPort, '/envoy.service.auth.v3.Authorization/Nope', Buffer.alloc(0))).toBe(12);
    // Still serving.
    const caller = await s.newCaller();
    expect((await s.check({ url: `/mainnet${PATH}`, headers: { 'x-api-key': caller.key } })).status.code).toBe(0);
  });
});
