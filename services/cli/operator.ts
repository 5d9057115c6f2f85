import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_LEASE, Operator, operatorSettings } from '../operator/index.js';
import { onShutdown, openRuntime, readConfig } from './runtime.js';

/**
 * `suigw operator`: reconciles the suigw.io custom resources (docs/kubernetes.md). In a pod it
 * uses the service account; elsewhere the kubeconfig (KUBECONFIG or ~/.kube/config), as kubectl
 * does. Run `suigw migrate` first: it writes keys and projects to PostgreSQL.
 */
export async function runOperator(): Promise<void> {
  const config = readConfig();
  const runtime = await openRuntime(config, { migrate: config.databaseUrl === undefined });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const operator = new Operator({
    kubeConfig,
    database: runtime.database,
    clock: runtime.clock,
    logger: runtime.logger,
    settings: operatorSettings(config),
    lease: { ...DEFAULT_LEASE, namespace: config.operator.namespace, identity: config.operator.identity ?? hostname() },
  });
  operator.onSnapshot((ir) => runtime.logger.info({ version: ir.version, keys: ir.keys.length, streams: ir.streams.length, plans: ir.plans.length }, 'gateway IR rebuilt'));
  onShutdown(async () => {
    await operator.stop();
    await runtime.database.close();
  }, runtime.logger);
  await operator.start();
  runtime.logger.info({ namespace: config.operator.namespace, server: kubeConfig.getCurrentCluster()?.server }, 'operator started');
}
