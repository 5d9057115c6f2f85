/**
 * The baseline: plain fastify doing the least a gateway can do. No authentication, no
 * validation, no logging, no metrics; `GET /balance/:owner` makes the same
 * `stateService.listBalances` call as the gateway's balance route over the same native gRPC
 * transport and returns JSON, and `GET /hello` returns a body shaped like `/v1/auth/me`'s.
 * Anything the gateway does beyond this is what the gateway/bare ratio prices.
 *
 * `node bin/run-ts.js bench/lib/bare-proxy.ts` with SUI_GRPC_URL set.
 */
import Fastify from 'fastify';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { createGrpcTransport } from '../../services/upstream/grpc-channel.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';
import { AUTH_ME_LIKE_BODY } from './auth-me-body.js';

exitWithParent();

export interface BareProxyReady {
  url: string;
}

const grpcUrl = process.env['SUI_GRPC_URL'];
if (!grpcUrl) throw new Error('SUI_GRPC_URL is required');
const transport = createGrpcTransport(grpcUrl);
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
  transport.close();
});
