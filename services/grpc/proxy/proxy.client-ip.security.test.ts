import { credentials } from '@grpc/grpc-js';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyValue } from '../../identity/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

/**
 * Behind Envoy every call's socket is Envoy's: the per-IP limits (here the budget of key lookups
 * that found no key, 3 a minute) count the visitor Envoy appended to X-Forwarded-For when
 * SUIGW_TRUST_PROXY says how many hops to trust, natively and over gRPC-Web alike; what a client
 * writes further left in X-Forwarded-For is never counted. Without the setting the socket's peer is.
 */
const LOOKUPS = '3';

/** The call's end as `code message-prefix`. */
async function outcome(client: SuiGrpcClient): Promise<string> {
  try {
    await client.ledgerService.getServiceInfo({});
    return 'OK';
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return `${code} ${message.split(':')[0]}`;
  }
}

const UNKNOWN = 'UNAUTHENTICATED Invalid API key';
const SPENT = 'RESOURCE_EXHAUSTED RATE_LIMIT_EXCEEDED';

function clients(e2e: GrpcProxyE2E) {
  return {
    /** A native call with a random unknown key, as Envoy forwards it: `forwardedFor` in X-Forwarded-For. */
    native: (forwardedFor: string) => outcome(new SuiGrpcClient({
      network: 'mainnet',
      transport: new GrpcTransport({ host: e2e.host, channelCredentials: credentials.createInsecure(), meta: { 'x-api-key': generateKeyValue(), 'x-forwarded-for': forwardedFor } }),
    })),
    /** The same over gRPC-Web (HTTP/1.1). */
    web: (forwardedFor: string) => outcome(new SuiGrpcClient({
      network: 'mainnet', baseUrl: `http://${e2e.host}`, meta: { 'x-api-key': generateKeyValue(), 'x-forwarded-for': forwardedFor },
    })),
  };
}

describe('gRPC proxy behind one trusted proxy (SUIGW_TRUST_PROXY=1): the client IP is the rightmost X-Forwarded-For entry', () => {
  let e2e: GrpcProxyE2E;
  beforeAll(async () => { e2e = await startGrpcProxyE2E({ env: { SUIGW_TRUST_PROXY: '1', SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE: LOOKUPS } }); });
  afterAll(async () => { await e2e.stop(); });

  it('one visitor spends its own budget, whatever it writes leftmost; the other visitors keep theirs, natively and over gRPC-Web', async () => {
    const { native, web } = clients(e2e);
    // 203.0.113.1 floods, each call claiming to be someone else (a forged leftmost entry Envoy keeps).
    const flood = [
      await native('198.51.100.1, 203.0.113.1'),
      await web('198.51.100.2, 203.0.113.1'),
      await native('198.51.100.3,203.0.113.1'),
      await native('198.51.100.4, 203.0.113.1'),
      await web('203.0.113.2, 203.0.113.1'),
    ];
    expect(flood).toEqual([UNKNOWN, UNKNOWN, UNKNOWN, SPENT, SPENT]);
    // Other visitors behind the same Envoy (the same socket peer): their own budgets.
    expect([await native('203.0.113.2'), await web('203.0.113.3'), await native('203.0.113.1, 203.0.113.4')]).toEqual([UNKNOWN, UNKNOWN, UNKNOWN]);
  });
});

describe('gRPC proxy with no trusted proxy (default): the client IP is the socket peer, X-Forwarded-For is ignored', () => {
  let e2e: GrpcProxyE2E;
  beforeAll(async () => { e2e = await startGrpcProxyE2E({ env: { SUIGW_UNKNOWN_KEY_LOOKUPS_PER_MINUTE: LOOKUPS } }); });
  afterAll(async () => { await e2e.stop(); });

  it('every call from this socket address shares one budget, whatever X-Forwarded-For says', async () => {
    const { native, web } = clients(e2e);
    expect([await native('203.0.113.1'), await web('203.0.113.2'), await native('203.0.113.3'), await web('203.0.113.4'), await native('203.0.113.5')])
      .toEqual([UNKNOWN, UNKNOWN, UNKNOWN, SPENT, SPENT]);
  });
});
