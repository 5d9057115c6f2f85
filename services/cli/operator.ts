import { existsSync, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { bindPort, Metrics, startMetricsServer } from '../core/index.js';
import { AdsServer } from '../../operator/xds/index.js';
import { DEFAULT_LEASE, Operator, OperatorMetrics, operatorSettings, type NetworkHosts } from '../../operator/index.js';
import { onShutdown, openRuntime, readConfig } from './runtime.js';

/** Envoy's ADS port of every operator replica (the chart's `operator.xdsPort`). */
export const XDS_DEFAULT_PORT = 18000;

const NETWORKS_FILE = z.record(z.string(), z.object({ httpHosts: z.array(z.string()).optional(), grpcHosts: z.array(z.string()).optional() }));

interface OperatorOptions {
  xdsPort: number;
  listenerPort: number;
  trustedProxyHops: number;
  servicePrefix: string | undefined;
  networks: Record<string, NetworkHosts> | undefined;
}

function integer(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > max) throw new Error(`--${name} must be an integer 0-${max}, not '${value}'`);
  return parsed;
}

/** The flags the chart passes (charts/suigw/templates/operator.yaml); all optional. */
const OPERATOR_FLAGS = {
  'xds-port': `port of Envoy's ADS (xDS) server (default ${XDS_DEFAULT_PORT})`,
  'listener-port': "Envoy's public listener port in the xDS translation (default 8080)",
  'trusted-proxy-hops': 'proxies in front of Envoy that append to X-Forwarded-For (default 0)',
  'service-prefix': 'Services named <prefix>-gateway, <prefix>-grpc, … are the backends',
  networks: 'a JSON file of the public hosts per network ({"mainnet": {"httpHosts": […], "grpcHosts": […]}})',
} as const;

/** `suigw operator --help`. */
export function operatorUsage(): string {
  const width = Math.max(...Object.keys(OPERATOR_FLAGS).map((flag) => flag.length)) + 2;
  return [
    'usage: suigw operator [options]   (in a pod: its service account; elsewhere the kubeconfig)',
    '',
    ...Object.entries(OPERATOR_FLAGS).map(([flag, about]) => `  --${flag.padEnd(width)}  ${about}`),
  ].join('\n');
}

export function operatorOptions(argv: string[]): OperatorOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: Object.fromEntries(Object.keys(OPERATOR_FLAGS).map((flag) => [flag, { type: 'string' }])) as Record<keyof typeof OPERATOR_FLAGS, { type: 'string' }>,
  });
  return {
    xdsPort: integer('xds-port', values['xds-port'], XDS_DEFAULT_PORT, 65_535),
    listenerPort: integer('listener-port', values['listener-port'], 8080, 65_535),
    trustedProxyHops: integer('trusted-proxy-hops', values['trusted-proxy-hops'], 0, 16),
    servicePrefix: values['service-prefix'],
    networks: values.networks === undefined ? undefined : NETWORKS_FILE.parse(JSON.parse(readFileSync(values.networks, 'utf8'))),
  };
}

/** Where a pod's service account token is mounted (the client's in-cluster configuration reads it). */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The API server's configuration, found where kubectl and the client look (KubeConfig's
 * loadFromDefault): KUBECONFIG's files, else ~/.kube/config, else the pod's service account. When
 * none is there the client falls back to http://localhost:8080, which it then refuses on every
 * request ("HTTP protocol is not allowed…"), so the operator retried forever; this says why instead.
 */
export function loadKubeConfig(
  kubeconfig: string | undefined,
  home: string,
  serviceAccountToken = SERVICE_ACCOUNT_TOKEN,
): { kubeConfig: KubeConfig } | { problem: string } {
  const listed = (kubeconfig ?? '').split(delimiter).filter(Boolean);
  const missing = listed.filter((file) => !existsSync(file));
  if (missing.length > 0) return { problem: `KUBECONFIG names ${missing.join(', ')}, which does not exist` };
  const homeConfig = join(home, '.kube', 'config');
  const files = listed.length > 0 ? listed : existsSync(homeConfig) ? [homeConfig] : [];
  if (files.length === 0 && !existsSync(serviceAccountToken)) {
    return {
      problem: `no Kubernetes API server to talk to: KUBECONFIG is unset, ${homeConfig} does not exist, and this is not a pod with a service account (${serviceAccountToken}); set KUBECONFIG, or run it in the cluster`,
    };
  }
  const kubeConfig = new KubeConfig();
  try {
    if (files.length === 0) {
      kubeConfig.loadFromCluster();
    } else {
      // As loadFromDefault merges KUBECONFIG's files, from the config's value rather than process.env.
      kubeConfig.loadFromFile(files[0]!);
      for (const file of files.slice(1)) {
        const next = new KubeConfig();
        next.loadFromFile(file);
        kubeConfig.mergeConfig(next);
      }
    }
  } catch (error) {
    return { problem: `the kubeconfig could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { kubeConfig };
}

/**
 * `suigw operator`: reconciles the suigw.io custom resources (docs/kubernetes.md) and serves the
 * result to Envoy over ADS (docs/envoy-xds.md): every replica serves xDS from its own informer
 * cache; only the Lease holder writes. In a pod it uses the service account; elsewhere the
 * kubeconfig (KUBECONFIG or ~/.kube/config), as kubectl does. Run `suigw migrate` first.
 */
export async function runOperator(argv: string[] = []): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(operatorUsage());
    return;
  }
  let options: OperatorOptions;
  try {
    options = operatorOptions(argv);
  } catch (error) {
    console.error(`suigw operator: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
  const config = readConfig();
  const found = loadKubeConfig(config.operator.kubeconfig, homedir());
  if ('problem' in found) {
    console.error(`suigw operator: ${found.problem}`);
    process.exit(2);
  }
  const { kubeConfig } = found;
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  const metrics = new Metrics();
  const operator = new Operator({
    kubeConfig,
    database: runtime.database,
    clock: runtime.clock,
    logger: runtime.logger,
    settings: operatorSettings(config, {
      ...(options.servicePrefix ? { servicePrefix: options.servicePrefix } : {}),
      ...(options.networks ? { networks: options.networks } : {}),
    }),
    lease: { ...DEFAULT_LEASE, namespace: config.operator.namespace, identity: config.operator.identity ?? hostname() },
    metrics: new OperatorMetrics(metrics.registry),
  });
  const ads = new AdsServer({
    logger: runtime.logger,
    registry: metrics.registry,
    translate: { listenerPort: options.listenerPort, trustedProxyHops: options.trustedProxyHops },
    // Logged and counted (suigw_xds_nacks_total) by the server; Envoy keeps its last good config.
    // The operator shows it as EnvoyAccepted=False on the resources' statuses until a later
    // version is accepted.
    onNack: (nack) => operator.reportEnvoy({ accepted: false, version: nack.rejectedVersion, nodeId: nack.nodeId, kind: nack.kind, message: nack.message }),
    onAck: (ack) => operator.reportEnvoy({ accepted: true, version: ack.version, nodeId: ack.nodeId, kind: ack.kind }),
  });
  // On HOST as every role (the chart sets 0.0.0.0 for Envoy to reach it).
  const xdsPort = await bindPort('--xds-port', options.xdsPort, () => ads.listen(options.xdsPort, config.host));
  operator.onSnapshot((ir) => {
    try {
      ads.publish(ir);
    } catch (error) {
      // A snapshot Envoy's protos cannot carry is refused whole; the previous one stays served.
      runtime.logger.error({ err: error, version: ir.version }, 'xDS snapshot refused');
    }
  });
  const metricsServer = config.metrics ? await startMetricsServer(metrics, config.metrics) : undefined;
  onShutdown(async () => {
    await operator.stop();
    ads.close();
    await metricsServer?.close();
    await runtime.database.close();
  }, runtime.logger);
  await operator.start();
  runtime.logger.info({ namespace: config.operator.namespace, server: kubeConfig.getCurrentCluster()?.server, xdsPort }, 'operator started');
}
