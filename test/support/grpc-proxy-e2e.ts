import { credentials } from '@grpc/grpc-js';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { createLogger, type Metrics } from '../../services/core/index.js';
import { createKey, type Scope } from '../../services/identity/index.js';
import type { Metering } from '../../services/metering/index.js';
import { createGrpcProxy, type GrpcProxy } from '../../services/grpc/proxy/index.js';
import { defaultUpstreamPolicy, SuiUpstream, type Upstream, type UpstreamPolicy } from '../../services/upstream/index.js';
import { createTestApp, type TestApp } from './test-app.js';
import type { GatewayAppOptions } from '../../services/cli/gateway-app.js';
import { startTestSimnet, type TestSimnet } from './simnet-harness.js';
import type { Tier } from '../../services/plans/index.js';
import { openPipeline } from '../../services/pipeline/index.js';

export interface GrpcProxyE2E {
  gateway: TestApp;
  /** The upstream: simnet unless `upstreamUrl` was given. */
  simnet: TestSimnet | undefined;
  upstream: Upstream;
  metering: Metering;
  proxy: GrpcProxy;
  /** `127.0.0.1:port` of the proxy. */
  host: string;
  /** SuiGrpcClient over native gRPC (grpc-js), sending `key`. */
  native(key: string | undefined): SuiGrpcClient;
  /** SuiGrpcClient over gRPC-Web (the SDK's default fetch transport), sending `key` (and `origin`, as a browser page does). */
  web(key: string | undefined, origin?: string): SuiGrpcClient;
  key(options?: { scopes?: Scope[]; network?: 'mainnet' | 'testnet'; allowedOrigins?: string[]; perKeyRps?: number }): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The gRPC proxy as `suigw dev` runs it for mainnet (one port, fixed network), with the shipped
 * authenticator and metering on a real PostgreSQL database and a manual clock, in front of simnet
 * (or of `upstreamUrl`, e.g. a fake upstream for failure tests).
 */
export async function startGrpcProxyE2E(
  options: {
    tier?: Tier; policy?: Partial<UpstreamPolicy>; upstreamUrl?: string; env?: Record<string, string>; extra?: Partial<GatewayAppOptions>; metrics?: Metrics;
    /** The proxy's `drainMs` (how long its close lets calls in flight finish). */
    drainMs?: number;
    /** The proxy and the HTTP gateway share one pipeline (one limiter, ledger and usage recorder), as in `suigw dev`. */
    sharedPipeline?: boolean;
  } = {},
): Promise<GrpcProxyE2E> {
  const simnet = options.upstreamUrl ? undefined : await startTestSimnet();
  const grpcUrl = options.upstreamUrl ?? simnet!.grpcUrl;
  const upstream = new SuiUpstream({
    network: 'mainnet', endpoints: { grpcUrl, graphqlUrl: simnet?.graphqlUrl ?? 'http://127.0.0.1:1/graphql' }, policy: { ...defaultUpstreamPolicy, ...options.policy },
  });
  const gateway = await createTestApp({ extra: { ...options.extra, upstreams: new Map([['mainnet', upstream]]) }, ...(options.tier ? { tier: options.tier } : {}), ...(options.env ? { env: options.env } : {}), sharedPipeline: options.sharedPipeline });
  const logger = createLogger('silent');
  const shared = gateway.pipeline;
  const opened = shared ?? await openPipeline({ config: gateway.config, database: gateway.db.database, clock: gateway.clock, logger });
  const metering = opened.metering!;
  const proxy = createGrpcProxy({
    pipeline: opened.pipeline, upstreams: new Map([['mainnet', upstream]]), networkOf: () => 'mainnet', clock: gateway.clock, trustProxy: gateway.config.trustProxy, ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
  });
  const address = await proxy.listen(0, '127.0.0.1');
  const host = `127.0.0.1:${address.port}`;
  return {
    gateway, simnet, upstream, metering, proxy, host,
    native: (key) => new SuiGrpcClient({
      network: 'mainnet',
      transport: new GrpcTransport({ host, channelCredentials: credentials.createInsecure(), ...(key ? { meta: { 'x-api-key': key } } : {}) }),
    }),
    web: (key, origin) => new SuiGrpcClient({
      network: 'mainnet', baseUrl: `http://${host}`, meta: { ...(key ? { 'x-api-key': key } : {}), ...(origin ? { origin } : {}) },
    }),
    async key(wanted = {}) {
      const created = await createKey(gateway.db.database, gateway.clock, { kind: 'operator' }, {
        organizationId: gateway.organizationId,
        projectId: wanted.network === 'testnet' ? gateway.projects.testnet : gateway.projects.mainnet,
        name: 'grpc test',
        scopes: wanted.scopes ?? ['data'],
        ...(wanted.allowedOrigins ? { allowedOrigins: wanted.allowedOrigins } : {}),
        ...(wanted.perKeyRps ? { rateLimit: { perKeyRps: wanted.perKeyRps } } : {}),
      });
      return created.apiKey;
    },
    async stop() {
      await proxy.close();
      // A shared pipeline closes with the gateway that owns it.
      if (!shared) await opened.close();
      await gateway.close();
      await upstream.close();
      await simnet?.stop();
    },
  };
}
