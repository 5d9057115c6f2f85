import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { GrpcTypes } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, Metrics, systemClock } from '../../services/core/index.js';
import { AdsServer, translateToEnvoy } from '../../operator/xds/index.js';
import { createOrganization } from '../../services/identity/index.js';
import type { GatewayIR } from '../../operator/ir.js';
import type { KubeApiDouble } from '../support/kube-api-server/api-server.js';
import { eventually, startApiDouble, TEST_SETTINGS } from '../support/kube-api-server/harness.js';
import { Operator } from '../../operator/runtime/operator.js';
import { kubeConfigFor } from '../support/kube-api-server/harness.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../support/grpc-proxy-e2e.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * The whole Kubernetes control path in one process, as `suigw operator` wires it
 * (services/cli/operator.ts): custom resources in an API-server double → the operator's
 * informers and translation → GatewayIR → our ADS server → a real proxyless gRPC client
 * (@grpc/grpc-js-xds) that routes by what it learned to the grpc role (our gRPC proxy, with its
 * key check and metering) in front of simnet's real sui.rpc.v2 server.
 */
const GRPC_HOST = 'mainnet.grpc.test';
const BOOTSTRAP_KEY = 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config';
const NAMESPACE = 'team-a';

xds.register();

let apiKey = '';

function chainIdVia(client: grpc.Client): Promise<string> {
  const metadata = new grpc.Metadata();
  metadata.set('x-api-key', apiKey);
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      '/sui.rpc.v2.LedgerService/GetServiceInfo',
      (request: Uint8Array) => Buffer.from(request),
      (bytes: Buffer) => GrpcTypes.GetServiceInfoResponse.fromBinary(bytes),
      GrpcTypes.GetServiceInfoRequest.toBinary({}),
      metadata,
      { deadline: Date.now() + 10_000 },
      (error, response) => (error ? reject(error) : resolve(response!.chainId ?? '')),
    );
  });
}

async function routeAcks(metrics: Metrics): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('suigw_xds_acks_total')?.get();
  return metric?.values.find((value) => value.labels['type'] === 'route')?.value ?? 0;
}

describe('operator → IR → ADS → a real xDS client', () => {
  let db: TestDatabase;
  let grpcRole: GrpcProxyE2E;
  let chainId: string;
  let api: KubeApiDouble;
  let operator: Operator;
  let ads: AdsServer;
  let client: grpc.Client;
  let organizationId: string;
  const metrics = new Metrics();
  const published: GatewayIR[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    organizationId = (await createOrganization(db.database.db, systemClock, { name: 'Acme', tier: 'growth', projects: [] })).organization.id;
    grpcRole = await startGrpcProxyE2E();
    apiKey = await grpcRole.key();
    chainId = grpcRole.simnet!.chainId;
    const [address, port] = grpcRole.host.split(':');
    const started = await startApiDouble();
    api = started.api;
    operator = new Operator({
      kubeConfig: kubeConfigFor(started.url, 'op'),
      database: db.database,
      clock: systemClock,
      logger: createLogger('silent'),
      settings: {
        ...TEST_SETTINGS,
        hosts: [{ network: 'mainnet', http: ['mainnet.api.test'], grpc: [GRPC_HOST] }],
        backends: { ...TEST_SETTINGS.backends, grpc: { ...TEST_SETTINGS.backends.grpc, endpoints: [{ address: address!, port: Number(port) }] } },
      },
      lease: { namespace: 'suigw', name: 'suigw-operator', identity: 'op', leaseDurationMs: 15_000, retryMs: 100 },
    });
    // As services/cli/operator.ts wires them: the clients' ACKs and NACKs go back to the operator.
    ads = new AdsServer({
      logger: createLogger('silent'),
      registry: metrics.registry,
      onNack: (nack) => operator.reportEnvoy({ accepted: false, version: nack.rejectedVersion, nodeId: nack.nodeId, kind: nack.kind, message: nack.message }),
      onAck: (ack) => operator.reportEnvoy({ accepted: true, version: ack.version, nodeId: ack.nodeId, kind: ack.kind }),
    });
    const adsPort = await ads.listen(0, '127.0.0.1');
    operator.onSnapshot((ir) => {
      published.push(ir);
      ads.publish(ir);
    });
    await operator.start();
    const bootstrap = {
      xds_servers: [{ server_uri: `127.0.0.1:${adsPort}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
      node: { id: 'operator-xds-test', locality: {} },
    };
    client = new grpc.Client(`xds:///${GRPC_HOST}`, grpc.credentials.createInsecure(), { [BOOTSTRAP_KEY]: JSON.stringify(bootstrap) });
  });

  afterAll(async () => {
    client?.close();
    await operator?.stop();
    ads?.close();
    await api?.close();
    await grpcRole?.stop();
    await db?.drop();
  });

  it('serves what the operator built: the client reaches the grpc role the IR names, with its key', async () => {
    await eventually(() => published.length > 0 || undefined, 'a first IR');
    expect(await chainIdVia(client)).toBe(chainId);
  });

  it('a changed custom resource reaches the connected client as a new route configuration', async () => {
    const acksBefore = await routeAcks(metrics);
    const versionBefore = ads.version;
    api.store.create(api.type('projects'), NAMESPACE, { metadata: { name: 'shop' }, spec: { organizationId, network: 'mainnet' } });
    // An origin-restricted key changes the network's CORS origins, i.e. the routes Envoy gets.
    api.store.create(api.type('apikeys'), NAMESPACE, {
      metadata: { name: 'web' },
      spec: { project: 'shop', displayName: 'Web', scopes: ['data'], allowedOrigins: ['https://shop.example.com'], expiresInDays: 30 },
    });
    const startedAt = Date.now();
    const latest = await eventually(
      () => published.find((ir) => ir.networks.some((network) => network.corsOrigins.includes('https://shop.example.com'))),
      'an IR with the key\'s origin',
    );
    await eventually(async () => ((await routeAcks(metrics)) > acksBefore && ads.version === latest.version) || undefined, 'the client\'s ACK of the new routes');
    // Printed, not asserted (no timings in tests): bench/xds-propagation.ts measures it.
    console.log(`CR → IR → ADS → client ACK: ${Date.now() - startedAt} ms`);
    expect(ads.version).not.toBe(versionBefore);
    expect(await chainIdVia(client)).toBe(chainId);
  });

  it('a snapshot the client rejects shows on the resources\' status until a later version is accepted', async () => {
    const envoyCondition = () => (api.store.get(api.type('apikeys'), NAMESPACE, 'web')?.status?.conditions ?? [])
      .find((condition: { type: string }) => condition.type === 'EnvoyAccepted') as { status: string; reason: string; message: string } | undefined;
    const served = operator.latest!;
    // The operator's own snapshot with ext_authz made mandatory on the proxyless listener: gRPC
    // clients do not implement it and must reject the listener (NOTES.md).
    const rejected = translateToEnvoy({ ...served, version: 'rejected-1' });
    for (const listener of rejected.listeners) {
      const manager = (listener.api_listener as { api_listener: { http_filters: { is_optional?: boolean }[] } } | undefined)?.api_listener;
      for (const filter of manager?.http_filters ?? []) delete filter.is_optional;
    }
    ads.publishSnapshot(rejected);
    const refused = await eventually(() => (envoyCondition()?.status === 'False' ? envoyCondition() : undefined), 'EnvoyAccepted=False on the ApiKey');
    expect(refused).toMatchObject({ reason: 'Rejected' });
    expect(refused!.message).toContain('operator-xds-test rejected listener version rejected-1');
    expect(refused!.message).toContain('envoy.filters.http.ext_authz');
    // The client keeps its last good configuration meanwhile.
    expect(await chainIdVia(client)).toBe(chainId);

    // The operator's snapshot served again: the client accepts it, and the condition clears.
    ads.publish(served);
    const accepted = await eventually(() => (envoyCondition()?.status === 'True' ? envoyCondition() : undefined), 'EnvoyAccepted=True again');
    expect(accepted).toMatchObject({ reason: 'Accepted', message: `version ${served.version} accepted by operator-xds-test` });
  });
});
