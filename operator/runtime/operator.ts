import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { type Clock, type Logger } from '../../services/core/index.js';
import type { Database } from '../../services/db/index.js';
import { organizationsOfKeys } from '../../services/identity/index.js';
import { type Kind } from '../crds/schemas.js';
import type { GatewayIR } from '../ir.js';
import { refusedStatus, withEnvoyCondition, type EnvoyReport, type Outcome } from '../translate/conditions.js';
import { translate } from '../translate/translate.js';
import { type ClusterState, type CustomResource, type OwnedSecret, type StatusUpdate, type TranslationSettings } from '../translate/types.js';
import { Debouncer } from './debouncer.js';
import { refKey, RowActions } from './row-actions.js';
import { loadDatabaseView } from './database-view.js';
import { CUSTOM_TYPES, Informer, ownedTypes } from './informers.js';
import { containsFields, KubeWriter, sameJson } from './kube-writer.js';
import { LeaseElector, type LeaseSettings } from './leader.js';
import type { OperatorMetrics } from './operator-metrics.js';
import { systemTimers, type Timers } from './timers.js';

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  database: Database;
  clock: Clock;
  logger: Logger;
  settings: Omit<TranslationSettings, 'now'>;
  lease: LeaseSettings;
  timers?: Timers;
  /** A full rebuild at least this often, changes or not (default 60 s). */
  resyncMs?: number;
  quietMs?: number;
  maxMs?: number;
  /** Counts rebuilds by result (`suigw_operator_reconciles_total`). */
  metrics?: OperatorMetrics;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- objects from the informer caches are open JSON. */
type Json = Record<string, any>;

/**
 * `suigw operator`: informers → debounced full rebuild → pure translation → effects. Every
 * replica translates and publishes the IR (each serves xDS); only the lease holder writes rows,
 * Secrets, workloads and statuses.
 */
export class Operator {
  readonly #informers = new Map<string, Informer>();
  readonly #writer: KubeWriter;
  readonly #elector: LeaseElector;
  readonly #debouncer: Debouncer;
  readonly #timers: Timers;
  readonly #listeners: ((ir: GatewayIR) => void)[] = [];
  /** Secrets written but not yet seen by the informer: a rebuild must not create their key again. */
  readonly #writtenSecrets = new Map<string, OwnedSecret>();
  readonly #rows: RowActions;
  #latest: GatewayIR | undefined;
  /** The xDS clients' last word on the served configuration (see `reportEnvoy`). */
  #envoy: EnvoyReport | undefined;
  #resyncTimer: unknown;
  #stopped = false;

  constructor(private readonly options: OperatorOptions) {
    this.#timers = options.timers ?? systemTimers;
    this.#writer = new KubeWriter(options.kubeConfig);
    this.#rows = new RowActions({ database: options.database, clock: options.clock, writer: this.#writer, writtenSecrets: this.#writtenSecrets });
    this.#debouncer = new Debouncer(() => this.rebuild(), options.clock, this.#timers, options.quietMs ?? 100, options.maxMs ?? 500);
    this.#elector = new LeaseElector(options.kubeConfig, options.lease, options.clock, this.#timers, options.logger);
    this.#elector.onChange((leader) => {
      options.logger.info({ leader, identity: options.lease.identity }, 'leadership changed');
      if (leader) this.#debouncer.notify();
    });
    for (const type of [...Object.values(CUSTOM_TYPES), ...Object.values(ownedTypes(options.settings.namespace))]) {
      this.#informers.set(type.kind, new Informer(type, options.kubeConfig, () => this.#debouncer.notify(), this.#timers, options.logger));
    }
  }

  get isLeader(): boolean {
    return this.#elector.isLeader;
  }

  get latest(): GatewayIR | undefined {
    return this.#latest;
  }

  /** Called with every new IR (and at once with the current one): the xDS server plugs in here. */
  onSnapshot(listener: (ir: GatewayIR) => void): void {
    this.#listeners.push(listener);
    if (this.#latest) listener(this.#latest);
  }

  /**
   * What an xDS client said about a snapshot (the ADS server's ACK/NACK callbacks): a rejection
   * shows as `EnvoyAccepted=False` on every resource's status (the leader writes it); a later
   * version accepted clears it. Repeated ACKs of the same state change nothing.
   */
  reportEnvoy(report: EnvoyReport): void {
    const current = this.#envoy;
    // Only the rejected resource type accepting a later version, the one now built, clears a
    // rejection: another type's ACK (of an older version, or of the very version rejected: a
    // client ACKs routes and clusters of a snapshot whose listener it refused) says nothing of it.
    if (report.accepted && current?.accepted === false
      && (report.version !== this.#latest?.version || report.version === current.version || report.kind !== current.kind)) return;
    if (current && current.accepted === report.accepted && current.version === report.version) return;
    this.#envoy = report;
    this.#debouncer.notify();
  }

  async start(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((informer) => informer.start()));
    this.#elector.start();
    const resync = (): void => {
      this.#debouncer.notify();
      this.#resyncTimer = this.#timers.setTimeout(resync, this.options.resyncMs ?? 60_000);
    };
    resync();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    // A rebuild still writing must finish before the lease goes to another replica.
    await this.#debouncer.stop().catch(() => undefined);
    if (this.#resyncTimer !== undefined) this.#timers.clearTimeout(this.#resyncTimer);
    await Promise.all([...this.#informers.values()].map((informer) => informer.stop()));
    await this.#elector.stop();
  }

  /** One full rebuild from the caches. Public for the role's first pass and for tests. */
  async rebuild(): Promise<void> {
    const unsynced = [...this.#informers.values()].filter((informer) => !informer.synced).map((informer) => informer.type.kind);
    if (this.#stopped || unsynced.length > 0) {
      this.options.logger.debug({ unsynced }, 'rebuild waits for the first lists');
      return;
    }
    try {
      await this.#reconcile();
      this.options.metrics?.reconciles.inc({ result: 'ok' });
    } catch (error) {
      this.options.metrics?.reconciles.inc({ result: 'error' });
      this.options.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'rebuild failed; retrying');
      this.#timers.setTimeout(() => this.#debouncer.notify(), 1_000);
    }
  }

  /** Translates the caches and the database; the leader also writes rows, workloads and statuses. */
  async #reconcile(): Promise<void> {
    const cluster = this.#clusterState();
    const organizations = cluster.resources
      .filter((r) => r.kind === 'Project' || r.kind === 'OnchainPlan')
      .map((r) => (r.spec as Json | undefined)?.['organizationId'])
      .filter((id): id is string => typeof id === 'string');
    // The keys ApiKeys recorded: their organizations are read even when no Project names them any
    // more, so deleting an ApiKey whose Project went first still revokes its key.
    const recorded = cluster.resources
      .filter((r) => r.kind === 'ApiKey' && typeof r.status?.['keyId'] === 'string')
      .map((r) => r.status!['keyId'] as string);
    organizations.push(...await organizationsOfKeys(this.options.database.db, recorded));
    const database = await loadDatabaseView(this.options.database, organizations);
    const now = new Date(this.options.clock.now()).toISOString();
    const translation = translate({ settings: { ...this.options.settings, now }, cluster, database });
    if (translation.ir.version !== this.#latest?.version) {
      this.#latest = translation.ir;
      for (const listener of this.#listeners) listener(translation.ir);
    }
    if (!this.#elector.isLeader) return;
    const { failures, applied } = await this.#rows.run(translation.actions);
    await this.#applyWorkloads(translation.workloads);
    for (const workload of translation.deletions) await this.#writer.delete(workload);
    await this.#writeStatuses(cluster, translation.statuses, failures, now);
    // Applied row changes move the database the next translation reads. Failed ones changed
    // nothing that needs showing: repeated at once, a refused Secret write made one more disabled
    // key row every rebuild, ten a second; they are tried again at the next change or resync.
    if (applied > 0) this.#debouncer.notify();
  }

  #clusterState(): ClusterState {
    const resources: CustomResource[] = (Object.keys(CUSTOM_TYPES) as Kind[]).flatMap((kind) =>
      this.#informers.get(kind)!.list().map((object) => {
        const json = object as Json;
        return { kind, metadata: metaOf(object), spec: json['spec'], status: json['status'] };
      }),
    );
    const secrets: OwnedSecret[] = this.#informers.get('Secret')!.list().map((object) => ({ metadata: metaOf(object) }));
    for (const [key, secret] of this.#writtenSecrets) {
      if (secrets.some((s) => `${s.metadata.namespace}/${s.metadata.name}` === key)) this.#writtenSecrets.delete(key);
      else secrets.push(secret);
    }
    const deployments = this.#informers.get('Deployment')!.list().map((object) => ({ metadata: metaOf(object) }));
    const cronJobs = this.#informers.get('CronJob')!.list().map((object) => ({ metadata: metaOf(object) }));
    return { resources, secrets, deployments, cronJobs };
  }

  async #applyWorkloads(workloads: Record<string, unknown>[]): Promise<void> {
    for (const workload of workloads) {
      const kind = workload['kind'] as 'Deployment' | 'CronJob';
      const meta = workload['metadata'] as { name: string; namespace: string };
      const current = this.#informers.get(kind)!.list().find((o) => o.metadata?.name === meta.name && o.metadata?.namespace === meta.namespace);
      if (current && containsFields(current, workload)) continue;
      await this.#writer.apply(workload);
    }
  }

  async #writeStatuses(cluster: ClusterState, statuses: StatusUpdate[], failures: Map<string, Outcome>, now: string): Promise<void> {
    for (let update of statuses) {
      const resource = cluster.resources.find((r) => r.metadata.uid === update.ref.uid);
      if (!resource) continue;
      const failure = failures.get(refKey(update.ref));
      if (failure) update = refusedStatus(resource, update, failure, now);
      update = withEnvoyCondition(resource, update, this.#envoy, now);
      if (sameJson(resource.status ?? {}, update.status)) continue;
      await this.#writer.writeStatus(update.ref, update.status);
    }
  }
}

function metaOf(object: KubernetesObject): CustomResource['metadata'] {
  const m = object.metadata ?? {};
  return {
    name: m.name ?? '',
    namespace: m.namespace ?? '',
    uid: m.uid ?? '',
    ...(m.generation === undefined ? {} : { generation: m.generation }),
    ...(m.deletionTimestamp ? { deletionTimestamp: new Date(m.deletionTimestamp).toISOString() } : {}),
    ...(m.finalizers ? { finalizers: m.finalizers } : {}),
    ...(m.labels ? { labels: m.labels } : {}),
    ...(m.annotations ? { annotations: m.annotations } : {}),
    ...(m.ownerReferences ? { ownerUids: m.ownerReferences.map((owner) => owner.uid) } : {}),
  };
}
