import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Registry } from 'prom-client';
import type { Logger } from '../../services/core/index.js';
import type { GatewayIR } from '../ir.js';
import { AdsStreamState, type DiscoveryRequest, type DiscoveryResponse, type XdsAck, type XdsNack } from './ads-stream.js';
import { encodeSnapshot, type EncodedSnapshot } from './encoded-snapshot.js';
import { PROTO_INCLUDE_DIRS } from './envoy-protos.js';
import type { EnvoySnapshot } from './snapshot.js';
import { DEFAULT_TRANSLATE_OPTIONS, translateToEnvoy, type TranslateOptions } from './translate-envoy.js';
import { kindOfTypeUrl } from './type-urls.js';
import { XdsMetrics } from './xds-metrics.js';

export interface AdsServerOptions {
  logger: Logger;
  registry: Registry;
  /** Called for every rejected response: the operator turns it into a status condition. */
  onNack?: (nack: XdsNack) => void;
  /** Called for every accepted response: the operator clears a rejection once a client moves on. */
  onAck?: (ack: XdsAck) => void;
  translate?: TranslateOptions;
}

type AdsCall = grpc.ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>;

function adsServiceDefinition(): grpc.ServiceDefinition {
  const definition = protoLoader.loadSync('envoy/service/discovery/v3/ads.proto', {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
    includeDirs: [...PROTO_INCLUDE_DIRS],
  });
  const service = definition['envoy.service.discovery.v3.AggregatedDiscoveryService'];
  return service as grpc.ServiceDefinition;
}

/**
 * `envoy.service.discovery.v3.AggregatedDiscoveryService`, state of the world: Envoy (wildcard
 * subscriptions) and proxyless gRPC clients (named subscriptions) get complete responses for
 * each subscribed type, versioned by the IR's content hash, and every new snapshot is pushed to
 * every open stream. Every operator replica serves it from its own informer cache.
 */
export class AdsServer {
  private snapshot: EncodedSnapshot | undefined;
  private readonly streams = new Map<AdsCall, AdsStreamState>();
  private readonly metrics: XdsMetrics;
  private server: grpc.Server | undefined;

  constructor(private readonly options: AdsServerOptions) {
    this.metrics = new XdsMetrics(options.registry);
  }

  get version(): string | undefined {
    return this.snapshot?.version;
  }

  /** Translates the IR and serves the result (a no-op when the version is already served). */
  publish(ir: GatewayIR): void {
    if (ir.version === this.snapshot?.version) return;
    this.publishSnapshot(translateToEnvoy(ir, this.options.translate ?? DEFAULT_TRANSLATE_OPTIONS));
  }

  /** Serves an already translated snapshot; throws (serving nothing new) if a resource would not encode losslessly. */
  publishSnapshot(snapshot: EnvoySnapshot): void {
    const encoded = encodeSnapshot(snapshot);
    const previous = this.snapshot?.version;
    this.snapshot = encoded;
    if (previous !== undefined) this.metrics.snapshotVersion.remove(previous);
    this.metrics.snapshotVersion.set({ version: encoded.version }, 1);
    this.options.logger.info({ version: encoded.version, streams: this.streams.size }, 'xDS snapshot published');
    for (const [call, state] of this.streams) for (const typeUrl of state.subscribedTypes()) this.send(call, state, typeUrl);
  }

  addTo(server: grpc.Server): void {
    server.addService(adsServiceDefinition(), {
      StreamAggregatedResources: (call: AdsCall) => this.serve(call),
      DeltaAggregatedResources: (call: AdsCall) =>
        call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'only state-of-the-world ADS is served' }),
    });
  }

  /** Starts a gRPC server of its own on host:port (0 picks one); resolves to the bound port. */
  async listen(port: number, host = '0.0.0.0'): Promise<number> {
    const server = new grpc.Server();
    this.addTo(server);
    // A failed bind is the caller's to report (PortInUseError, one line): grpc-js's own line is muted meanwhile.
    grpc.setLogVerbosity(grpc.logVerbosity.NONE);
    const bound = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, actual) => (error ? reject(error) : resolve(actual))),
    ).finally(() => grpc.setLogVerbosity(grpc.logVerbosity.ERROR));
    this.server = server;
    return bound;
  }

  /**
   * Ends every stream and stops its own server. ADS streams never finish by themselves, so a
   * graceful shutdown would wait forever: clients reconnect to another replica.
   */
  close(): void {
    for (const call of this.streams.keys()) call.end();
    this.streams.clear();
    this.metrics.streams.set(0);
    this.server?.forceShutdown();
    this.server = undefined;
  }

  private serve(call: AdsCall): void {
    const state = new AdsStreamState();
    this.streams.set(call, state);
    this.metrics.streams.set(this.streams.size);
    const forget = () => {
      if (this.streams.delete(call)) this.metrics.streams.set(this.streams.size);
    };
    call.on('data', (request: DiscoveryRequest) => this.onRequest(call, state, request));
    call.on('end', () => {
      forget();
      call.end();
    });
    call.on('error', forget);
    call.on('cancelled', forget);
  }

  private onRequest(call: AdsCall, state: AdsStreamState, request: DiscoveryRequest): void {
    const outcome = state.onRequest(request);
    switch (outcome.kind) {
      case 'respond':
        this.send(call, state, outcome.typeUrl);
        return;
      case 'ack':
        this.metrics.acks.inc({ type: kindOfTypeUrl(outcome.typeUrl) });
        this.#callback('ACK', () => this.options.onAck?.(outcome.ack));
        return;
      case 'nack':
        this.metrics.nacks.inc({ type: outcome.nack.kind });
        this.options.logger.warn({ nack: outcome.nack }, 'xDS client rejected a response');
        this.#callback('NACK', () => this.options.onNack?.(outcome.nack));
        return;
      case 'ignore':
        return;
    }
  }

  #callback(what: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      // A failing status write must not take the stream (and every client on it) down.
      this.options.logger.error({ err: error }, `xDS ${what} callback failed`);
    }
  }

  private send(call: AdsCall, state: AdsStreamState, typeUrl: string): void {
    // Before the first snapshot the request waits: the publish answers it.
    if (!this.snapshot || !this.streams.has(call)) return;
    call.write(state.response(typeUrl, this.snapshot));
    this.metrics.responses.inc({ type: kindOfTypeUrl(typeUrl) });
  }
}
