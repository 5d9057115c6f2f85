/**
 * How fast a published IR reaches a connected proxyless gRPC client (issue 12: "within 1 s"):
 * the ADS server, two simnets as alternative backends and a real @grpc/grpc-js-xds channel in
 * one process; each round publishes an IR pointing at the other simnet and times until a call
 * is answered by it (calls back to back, so the figure includes one call's latency).
 */
import * as grpc from '@grpc/grpc-js';
import * as xds from '@grpc/grpc-js-xds';
import { GrpcTypes } from '@mysten/sui/grpc';
import { Registry } from 'prom-client';
import { createLogger } from '../services/core/index.js';
import { AdsServer, translateToEnvoy } from '../operator/xds/index.js';
import { encodeSnapshot } from '../operator/xds/encoded-snapshot.js';
import { readCase } from '../test/support/xds-golden-cases.js';
import { startSimnet } from '../services/simnet/index.js';

const ROUNDS = 30;

function chainId(client: grpc.Client): Promise<string> {
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(
      '/sui.rpc.v2.LedgerService/GetServiceInfo',
      (request: Uint8Array) => Buffer.from(request),
      (bytes: Buffer) => GrpcTypes.GetServiceInfoResponse.fromBinary(bytes),
      new Uint8Array(),
      (error, response) => (error ? reject(error) : resolve(response!.chainId ?? '')),
    ),
  );
}

export default async function (): Promise<void> {
  xds.register();
  const simnets = await Promise.all([startSimnet({ seed: 'bench-a', autoStart: false }), startSimnet({ seed: 'bench-b', autoStart: false })]);
  const ads = new AdsServer({ logger: createLogger('silent'), registry: new Registry() });
  const port = await ads.listen(0, '127.0.0.1');
  const irFor = (index: number, version: string) => {
    const ir = readCase('two-networks');
    const [address, grpcPort] = simnets[index]!.grpcHost.split(':');
    ir.backends.grpc = { ...ir.backends.grpc, endpoints: [{ address: address!, port: Number(grpcPort) }] };
    return { ...ir, version };
  };
  const bootstrap = { xds_servers: [{ server_uri: `127.0.0.1:${port}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }], node: { id: 'bench', locality: {} } };
  ads.publish(irFor(0, 'v0'));
  const client = new grpc.Client('xds:///mainnet.grpc.example.com', grpc.credentials.createInsecure(), {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
  });
  await chainId(client);
  const samples: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const target = round % 2;
    const started = performance.now();
    ads.publish(irFor(target, `v${round}`));
    while ((await chainId(client).catch(() => '')) !== simnets[target]!.chainId);
    samples.push(performance.now() - started);
  }
  const translateStart = performance.now();
  for (let index = 0; index < 100; index++) encodeSnapshot(translateToEnvoy(irFor(0, `t${index}`)));
  const translateMs = (performance.now() - translateStart) / 100;
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(1);
  console.log(`publish → client routed to the new endpoint, ${ROUNDS} rounds: median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`);
  console.log(`translate + encode + loss check of the two-networks IR: ${translateMs.toFixed(2)} ms`);
  client.close();
  ads.close();
  await Promise.all(simnets.map((simnet) => simnet.stop()));
}
