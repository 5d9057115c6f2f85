import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { AggregatorRegistry } from 'prom-client';
import { startMetricsServer, type Config, type Logger, type Metrics, type MetricsServer } from '../core/index.js';

/** The roles that can run as several processes on one port (issue 23: all cores on one machine). */
export const WORKER_ROLES = ['gateway', 'grpc', 'authz', 'ratelimit'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

export function isWorkerRole(role: string): role is WorkerRole {
  return (WORKER_ROLES as readonly string[]).includes(role);
}

/** What a role keeps in memory that must be shared for several workers to stay exact. */
const SHARED_STATE: Record<WorkerRole, { database: boolean; redis: boolean }> = {
  // The embedded PGlite database belongs to one process; limits and credits need Redis to be exact.
  gateway: { database: true, redis: true },
  grpc: { database: true, redis: true },
  ratelimit: { database: true, redis: true },
  // authz only reads keys (its cache is refreshed by NOTIFY in every worker): no limiter state.
  authz: { database: true, redis: false },
};

export class WorkersRefused extends Error {}

/**
 * How many processes serve the role. `auto`: one per core when the role's state is shared
 * (DATABASE_URL, and REDIS_URL for roles that limit), else 1, so that a per-key cap or a credit
 * is never counted once per worker. An explicit count above 1 without that state is refused.
 */
export function workerCount(role: WorkerRole, config: Pick<Config, 'workers' | 'databaseUrl' | 'redisUrl'>, cores = availableParallelism()): number {
  const needs = SHARED_STATE[role];
  const missing = [needs.database && config.databaseUrl === undefined ? 'DATABASE_URL' : undefined, needs.redis && config.redisUrl === undefined ? 'REDIS_URL' : undefined]
    .filter((name): name is string => name !== undefined);
  if (config.workers === 'auto') return missing.length === 0 ? cores : 1;
  if (config.workers > 1 && missing.length > 0) {
    throw new WorkersRefused(
      `SUIGW_WORKERS=${config.workers} needs ${missing.join(' and ')}: without ${missing.length === 1 ? 'it' : 'them'} each worker would keep its own ` +
        `${needs.redis ? 'limits and credits' : 'database'}. Set ${missing.join(' and ')}, or SUIGW_WORKERS=1.`,
    );
  }
  return config.workers;
}

/** Whether this process is one of a role's workers (its primary serves /metrics for all). */
export function isRoleWorker(): boolean {
  return cluster.isWorker;
}

/**
 * /metrics for a role: in a single process, its own listener; in a worker, nothing is served:
 * the worker's registry answers the primary, which sums every worker's (prom-client's cluster
 * aggregation; gauges that are states take the maximum).
 */
export async function serveRoleMetrics(metrics: Metrics, config: Pick<Config, 'metrics'>): Promise<MetricsServer | undefined> {
  if (cluster.isWorker) {
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([metrics.registry]);
    return undefined;
  }
  return config.metrics ? startMetricsServer(metrics, config.metrics) : undefined;
}

/** Restarts of crashed workers allowed per minute before the role gives up (exit 1). */
const MAX_RESTARTS_PER_MINUTE = 5;

/**
 * The primary of a role's workers: forks `count` processes running this same command (they
 * share the role's port: node:cluster hands connections round-robin), serves the summed
 * /metrics, restarts a worker that crashes, and on SIGTERM/SIGINT stops every worker and exits
 * 0 when they all stopped cleanly. A worker that exits with 2 before listening (port in use, bad
 * setting: it printed why) stops the role with 2.
 */
export async function runRolePrimary(role: WorkerRole, count: number, config: Pick<Config, 'metrics'>, logger: Logger): Promise<void> {
  let stopping = false;
  let othersForked = false;
  /** The workers that listened (a replacement joins when it listens). */
  const ready = new Set<number>();
  const restarts: number[] = [];
  const fork = () => cluster.fork({ SUIGW_WORKER_OF: role });

  const aggregator = new AggregatorRegistry();
  const metricsServer = config.metrics
    ? await startMetricsServer({ exposition: async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() }) }, config.metrics)
    : undefined;

  /** SIGTERM to every worker, then exit: `code`, or by how they stopped when it is undefined. */
  const stopAll = async (code?: number) => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    const clean = await Promise.all(workers.map((worker) => new Promise<boolean>((resolve) => {
      // A worker still starting has nothing to lose: the signal's default action is a clean stop.
      worker.once('exit', (exitCode, signal) => resolve(exitCode === 0 || (signal === 'SIGTERM' && !ready.has(worker.id))));
      worker.process.kill('SIGTERM');
    })));
    await metricsServer?.close();
    process.exit(code ?? (clean.every(Boolean) ? 0 : 1));
  };

  cluster.on('listening', (worker: Worker) => {
    if (ready.has(worker.id)) return;
    ready.add(worker.id);
    // The first worker alone finds a port in use or a bad setting (one line, not one per worker).
    if (!othersForked) {
      othersForked = true;
      for (let index = 1; index < count; index += 1) fork();
    }
    if (ready.size === count) logger.info({ role, workers: count, metricsUrl: metricsServer?.url }, `${role}: ${count} workers listening`);
  });
  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    if (stopping) return;
    if (!ready.delete(worker.id)) {
      // Before it listened: the worker printed why (one line); the role stops with its code.
      void stopAll(code === 2 ? 2 : 1);
      return;
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && restarts[0]! < now - 60_000) restarts.shift();
    if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
      logger.error({ role, restarts: restarts.length }, `${role}: workers keep crashing; stopping`);
      void stopAll(1);
      return;
    }
    logger.error({ role, pid: worker.process.pid, code, signal }, `${role}: a worker stopped; starting another`);
    fork();
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    console.error(`\n${signal}: stopping ${count} workers…`);
    void stopAll();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);

  fork();
}
