/**
 * The baseline: plain fastify doing the least a gateway can do. No authentication, no
 * validation, no logging, no metrics; `GET /balance/:owner` makes the same
 * `stateService.listBalances` call as the gateway's balance route over a native gRPC
 * transport and returns JSON, and `GET /hello` returns a body shaped like `/v1/auth/me`'s.
 * Anything the gateway does beyond this is what the gateway/bare ratio prices.
 *
 * The transport is named, never taken from the gateway's configuration (BARE_GRPC_TRANSPORT:
 * `grpc-js`, the SDK's GrpcTransport as every earlier result measured it, or `h2`, our
 * Http2GrpcTransport), so a change of the gateway's default cannot silently move the baseline.
 *
 * `node bin/run-ts.js bench/lib/bare-proxy.ts` with SUI_GRPC_URL and BARE_GRPC_TRANSPORT set.
 */
import Fastify from 'fastify';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import type { RpcTransport } from '@protobuf-ts/runtime-rpc';
import { createGrpcTransport } from '../../services/upstream/grpc-channel.js';
import { RawGrpcChannel } from '../../services/upstream/grpc-raw-channel.js';
import { Http2GrpcTransport } from '../../services/upstream/http2-grpc-transport.js';
import { installLeanAsyncResourceBind } from '../../services/core/async-resource-bind.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';
import { AUTH_ME_LIKE_BODY } from './auth-me-body.js';

exitWithParent();
// BENCH_BARE_LEAN_BIND=1: the same Node 20 runtime fix as every suigw process (services/cli).
if (process.env['BARE_LEAN_BIND'] === '1') installLeanAsyncResourceBind();

export interface BareProxyReady {
  url: string;
}

const grpcUrl = process.env['SUI_GRPC_URL'];
if (!grpcUrl) throw new Error('SUI_GRPC_URL is required');
function bareTransport(choice: string | undefined, url: string): { transport: RpcTransport; close: () => void } {
  if (choice === 'grpc-js') {
    const transport = createGrpcTransport(url);
    return { transport, close: () => transport.close() };
  }
  if (choice === 'h2') {
    // As SuiUpstream builds it.
    const channel = new RawGrpcChannel(url, { keepalive: { intervalMs: 30_000, timeoutMs: 10_000 } });
    return { transport: new Http2GrpcTransport(channel), close: () => channel.close() };
  }
  throw new Error(`BARE_GRPC_TRANSPORT must be grpc-js or h2, not ${choice}`);
}
const { transport, close: closeTransport } = bareTransport(process.env['BARE_GRPC_TRANSPORT'], grpcUrl);
const client = new SuiGrpcClient({ network: 'mainnet', transport });

const app = Fastify({ logger: false });
app.get<{ Params: { owner: string } }>('/balance/:owner', async (request) => {
  const { response } = await client.stateService.listBalances({ owner: request.params.owner, pageSize: 1000 });
  return {
    data: response.balances.map((b) => ({ coinType: b.coinType ?? '', balance: String(b.balance ?? 0n) })),
  };
});
app.get('/hello', async () => AUTH_ME_LIKE_BODY);

const url = await app.listen({ port: 0, host: '127.0.0.1' });
const ready: BareProxyReady = { url };
serveUntilStopped(ready, async () => {
  await app.close();
  closeTransport();
});
