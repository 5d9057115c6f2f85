import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAddressSocket } from '../journeys/support/sdk-flows.js';
import { dashboardQueries } from '../support/dashboard-queries.js';
import { startDev, type DevProcess } from '../support/dev-process.js';
import { startOperatorProcess, type OperatorProcess } from '../support/operator-process.js';
import { freePort } from '../support/processes.js';
import { startPrometheus, type PrometheusServer, type VectorSample } from '../support/prometheus-server.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies, checked field by field

/**
 * A real Prometheus (Debian's, scripts/ensure-prometheus.sh) scrapes `suigw dev`, started as
 * users start it, and `suigw operator` (which dev does not run; against the Kubernetes API-server
 * double) every second. After traffic of every kind (REST, JSON-RPC, GraphQL, native gRPC, a Warp
 * WebSocket, a webhook answered 500 then 200, a 429, testnet's circuit opened against an
 * upstream that refuses connections, a proxyless xDS client subscribing to the operator), every
 * panel query of the shipped dashboard returns data through Prometheus's HTTP API. Everything is
 * awaited by polling: no fixed wait.
 */
const GRPC_HOST = 'mainnet.grpc.test';
xds.register();

/** Grafana's built-in variables, as Grafana would fill them for this scrape interval and window. */
const GRAFANA_VARIABLES: Record<string, string> = { __rate_interval: '5m', __interval: '5s', __range: '5m' };

function withVariables(expr: string): string {
  const filled = expr.replace(/\$\{?(__[a-z_]+)\}?/g, (whole, name: string) => GRAFANA_VARIABLES[name] ?? whole);
  if (filled.includes('$')) throw new Error(`a dashboard variable this test does not know: ${expr}`);
  return filled;
}

const hasData = (samples: VectorSample[]) => samples.some((sample) => Number.isFinite(Number(sample.value[1])));

/** Polls Prometheus until `expr` has a finite sample (the deadline only bounds a hang on a loaded machine). */
async function eventuallyWithData(prometheus: PrometheusServer, expr: string, timeoutMs = 120_000): Promise<VectorSample[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const samples = await prometheus.query(expr);
    if (hasData(samples)) return samples;
    if (Date.now() > until) throw new Error(`no data within ${timeoutMs} ms for ${expr}: ${JSON.stringify(samples)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('a real Prometheus scraping suigw dev', () => {
  let dev: DevProcess;
  let operator: OperatorProcess;
  let prometheus: PrometheusServer;
  let key: string;
  let base: string;

  beforeAll(async () => {
    // testnet gets an upstream that refuses every connection: its circuit can be opened.
    const deadPort = await freePort();
    const dead = `http://127.0.0.1:${deadPort}`;
    [dev, operator] = await Promise.all([
      startDev({ env: { SUI_TESTNET_GRPC_URL: dead, SUI_TESTNET_GRAPHQL_URL: `${dead}/graphql` } }),
      startOperatorProcess({ env: { SUIGW_MAINNET_HOST: GRPC_HOST } }),
    ]);
    key = dev.state.adminKey;
    base = dev.state.networks['mainnet']!.baseUrl;
    prometheus = await startPrometheus([dev.state.metricsUrl!, operator.metricsUrl]);
    // Traffic starts after the first scrape, so every counter moves between two samples (rate() sees it).
    await eventuallyWithData(prometheus, 'count(up == 1) == 2');
  }, 240_000);
  afterAll(async () => {
    await prometheus?.stop();
    await operator?.stop();
    await dev?.stop();
  });

  const call = async (method: string, url: string, options: { key?: string; body?: unknown } = {}) => {
    const response = await fetch(url, {
      method,
      headers: { 'x-api-key': options.key ?? key, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, body: await response.json() as Body };
  };

  it('after traffic of every kind, every panel query of the dashboard has data', async () => {
    // REST, JSON-RPC, GraphQL.
    expect((await call('GET', `${base}/v1/chain`)).status).toBe(200);
    const jsonRpc = await call('POST', `${base}/v1/jsonrpc`, { body: { jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier', params: [] } });
    expect(jsonRpc.status).toBe(200);
    expect(jsonRpc.body.result).toMatch(/^[0-9a-f]{8}$/);
    const graphql = await call('POST', `${base}/v1/graphql`, { body: { query: '{ chainIdentifier }' } });
    expect(graphql.status).toBe(200);
    // GraphQL names the chain by its genesis checkpoint's digest, JSON-RPC by that digest's first 4 bytes.
    expect(graphql.body.data.chainIdentifier).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);

    // Native gRPC through the network's gRPC proxy.
    const sui = new SuiGrpcClient({ network: 'mainnet', transport: new GrpcTransport({
      host: new URL(dev.state.networks['mainnet']!.grpcUrl!).host, channelCredentials: grpc.credentials.createInsecure(), meta: { 'x-api-key': key },
    }) });
    expect((await sui.core.getChainIdentifier()).chainIdentifier).toBe(graphql.body.data.chainIdentifier);

    // A Warp WebSocket and a webhook on one address; its receiver answers 500 first (a retry), then 200.
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const receiver = await startWebhookReceiver();
    receiver.answer({ status: 500 });
    const [hook, stream] = await Promise.all([
      call('POST', `${base}/v1/webhooks`, { body: { url: `${receiver.url}/sui`, type: 'address', filters: { addresses: [recipient] } } }),
      call('POST', `${base}/v1/streams`, { body: { name: 'prometheus', type: 'address', filters: { addresses: [recipient] } } }),
    ]);
    expect([hook.status, stream.status]).toEqual([201, 201]);
    const socket = await openAddressSocket(`${dev.state.networks['mainnet']!.wsBaseUrl}/v1/warp/${stream.body.data.id}/ws?mode=resume`, key);
    await requestSuiFromFaucetV2({ host: dev.state.simnet!.faucetUrl, recipient });
    await expect.poll(() => socket.digests.length, { timeout: 60_000 }).toBeGreaterThan(0);
    socket.close();
    // The retry is due 5 s after the 500 (the schedule's second step): delivered then. If it is
    // not, the failure shows the delivery as the gateway holds it (status, attempts, next attempt, error).
    await expect.poll(() => receiver.received.length, { timeout: 60_000 }).toBe(2).catch(async (error: unknown) => {
      const deliveries = await call('GET', `${base}/v1/webhooks/${hook.body.data.id}/deliveries`);
      throw new Error(`webhook retry not received; deliveries: ${JSON.stringify(deliveries.body)}`, { cause: error });
    });
    await receiver.close();

    // A 429: a key capped at 1 request/s, asked twice in a row until the second is refused.
    const projects = (await call('GET', `${base}/v1/projects`)).body.data as { id: string; network: string }[];
    const capped = await call('POST', `${base}/v1/keys`, { body: { name: 'capped', projectId: projects.find((p) => p.network === 'mainnet')!.id, scopes: ['data'], rateLimit: { perKeyRps: 1 } } });
    expect(capped.status).toBe(201);
    await expect.poll(async () => {
      await call('GET', `${base}/v1/chain`, { key: capped.body.data.apiKey });
      return (await call('GET', `${base}/v1/chain`, { key: capped.body.data.apiKey })).status;
    }, { timeout: 60_000, interval: 0 }).toBe(429);

    // testnet's upstream refuses connections: its requests fail until the circuit opens, then fail fast.
    const testnetKey = await call('POST', `${base}/v1/keys`, { body: { name: 'testnet', projectId: projects.find((p) => p.network === 'testnet')!.id, scopes: ['data'] } });
    expect(testnetKey.status).toBe(201);
    const testnet = dev.state.networks['testnet']!.baseUrl;
    await expect.poll(async () => {
      await call('GET', `${testnet}/v1/chain`, { key: testnetKey.body.data.apiKey });
      return (await fetch(dev.state.metricsUrl!).then((r) => r.text())).includes('suigw_upstream_breaker_state{network="testnet",group="grpc"} 2');
    }, { timeout: 120_000, interval: 0 }).toBe(true);

    // A proxyless gRPC client subscribes to the operator's ADS for the network's gRPC host and ACKs what it gets.
    const bootstrap = {
      xds_servers: [{ server_uri: `127.0.0.1:${operator.xdsPort}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
      node: { id: 'prometheus-test', locality: {} },
    };
    const xdsClient = new grpc.Client(`xds:///${GRPC_HOST}`, grpc.credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
    });
    xdsClient.getChannel().getConnectivityState(true);
    await eventuallyWithData(prometheus, 'sum(suigw_xds_acks_total{type="listener"}) > 0');
    xdsClient.close();

    // What the traffic was, as Prometheus saw it.
    await expect.poll(async () => (await prometheus.query('sum by (protocol) (suigw_requests_total{protocol=~"rest|jsonrpc|graphql|grpc"})'))
      .map((sample) => sample.metric.protocol).sort(), { timeout: 60_000 }).toEqual(['graphql', 'grpc', 'jsonrpc', 'rest']);
    await eventuallyWithData(prometheus, 'suigw_rate_limit_rejections_total{kind="key_or_ip"} > 0');
    await eventuallyWithData(prometheus, 'max_over_time(suigw_upstream_breaker_state{network="testnet",group="grpc"}[10m]) == 2');
    await eventuallyWithData(prometheus, 'suigw_webhook_attempts_total{result="retrying"} == 1');
    await eventuallyWithData(prometheus, 'suigw_webhook_attempts_total{result="succeeded"} == 1');
    await eventuallyWithData(prometheus, 'suigw_warp_checkpoints_ingested_total{network="mainnet"} > 0');

    // Every panel query of the shipped dashboard.
    const queries = await dashboardQueries();
    expect(queries.length).toBeGreaterThan(10);
    for (const { panel, refId, expr } of queries) {
      const samples = await eventuallyWithData(prometheus, withVariables(expr)).catch((error: unknown) => {
        throw new Error(`panel "${panel}" (${refId}) has no data`, { cause: error });
      });
      expect(hasData(samples), `${panel} ${refId}`).toBe(true);
    }
  }, 600_000);
});
