import { DESCRIPTOR_KEYS } from '../../services/envoy/index.js';
import { authorizationService, rateLimitService } from '../../test/support/envoy-protos.js';

/**
 * The messages Envoy sends the two services, as h2load posts them: one gRPC frame each, encoded
 * by protobufjs from Envoy's own protos (proto-loader, as the test clients do).
 */
export const CHECK_PATH = '/envoy.service.auth.v3.Authorization/Check';
export const SHOULD_RATE_LIMIT_PATH = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

/**
 * The request headers of Envoy's own gRPC clients: ext_authz's default timeout is 200 ms, the
 * ratelimit filter's 20 ms, and Envoy sends them as `grpc-timeout`.
 */
export const CHECK_CALL_HEADERS = { 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': '200m' };
export const RATE_LIMIT_CALL_HEADERS = { 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': '20m' };

/** The REST request checked: one account's balance on mainnet (`/{network}` prefix, no host mapping). */
export const CHECKED_PATH = `/mainnet/v1/accounts/0x${'a1'.repeat(32)}/balance`;

function framed(message: Buffer): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/**
 * A Check as Envoy's ext_authz filter sends it for a browser-less REST client behind a load
 * balancer: source and destination peers, the request time, and 15 request headers (the
 * pseudo-headers included, as Envoy includes them).
 */
export function checkRequest(apiKey: string) {
  const headers = {
    ':authority': 'api.example.com',
    ':method': 'GET',
    ':path': CHECKED_PATH,
    ':scheme': 'https',
    accept: 'application/json',
    'accept-encoding': 'gzip, deflate, br',
    'accept-language': 'en-US,en;q=0.9',
    'cache-control': 'no-cache',
    'user-agent': 'suigw-client/1.4.2 node/20.20.0',
    'x-api-key': apiKey,
    'x-forwarded-for': '203.0.113.7',
    'x-forwarded-proto': 'https',
    'x-request-id': '5f0c2c8e-1b7a-4d0e-9a53-3f8e2b6c9d41',
    'x-envoy-external-address': '203.0.113.7',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  };
  return {
    attributes: {
      source: { address: { socket_address: { address: '203.0.113.7', port_value: 51_234 } } },
      destination: { address: { socket_address: { address: '10.0.3.17', port_value: 8080 } } },
      request: {
        time: { seconds: '1795348800', nanos: 123_000_000 },
        http: {
          id: '14379215394468112045', method: 'GET', headers, path: CHECKED_PATH, host: 'api.example.com', scheme: 'https', protocol: 'HTTP/1.1',
        },
      },
    },
  };
}

export function checkRequestFrame(apiKey: string): Buffer {
  return framed(authorizationService().service['Check']!.requestSerialize(checkRequest(apiKey)));
}

/** ShouldRateLimit with the one descriptor the operator's rate-limit actions build (DESCRIPTOR_KEYS). */
export function rateLimitRequest(identityToken: string) {
  return {
    domain: 'suigw',
    descriptors: [{ entries: [{ key: DESCRIPTOR_KEYS.identity.key, value: identityToken }, { key: DESCRIPTOR_KEYS.remoteAddress.key, value: '203.0.113.7' }] }],
    hits_addend: 1,
  };
}

export function rateLimitRequestFrame(identityToken: string): Buffer {
  return framed(rateLimitService().service['ShouldRateLimit']!.requestSerialize(rateLimitRequest(identityToken)));
}
