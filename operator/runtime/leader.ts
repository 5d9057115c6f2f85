import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { Clock, Logger } from '../../services/core/index.js';
import { isStatus } from './kube-writer.js';
import type { Timers } from './timers.js';

export interface LeaseSettings {
  namespace: string;
  name: string;
  /** This replica's identity (the pod name). */
  identity: string;
  leaseDurationMs: number;
  /** How often to renew, or to try to take over. */
  retryMs: number;
}

export const DEFAULT_LEASE = { name: 'suigw-operator', leaseDurationMs: 15_000, retryMs: 2_000 };

/**
 * Lease-based leader election (coordination.k8s.io/v1), as client-go's leaderelection does it:
 * the holder renews `renewTime`; another replica takes over once `renewTime + leaseDuration`
 * has passed on its clock. Every write carries the lease's resourceVersion, so of two replicas
 * racing for an expired lease the API server lets exactly one win (409 for the other). A leader
 * that cannot renew within the lease duration steps down before anyone may take over.
 */
export class LeaseElector {
  readonly #api: CoordinationV1Api;
  #leader = false;
  #lastRenewal = 0;
  #timer: unknown;
  #stopped = false;
  #inFlight: Promise<void> = Promise.resolve();
  readonly #listeners: ((leader: boolean) => void)[] = [];

  constructor(
    kubeConfig: KubeConfig,
    private readonly settings: LeaseSettings,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly logger: Logger,
  ) {
    this.#api = kubeConfig.makeApiClient(CoordinationV1Api);
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  onChange(listener: (leader: boolean) => void): void {
    this.#listeners.push(listener);
  }

  start(): void {
    this.#stopped = false;
    const loop = (): void => {
      this.#inFlight = this.tick();
      void this.#inFlight.finally(() => {
        if (this.#timer !== undefined) this.#timer = this.timers.setTimeout(loop, this.settings.retryMs);
      });
    };
    this.#timer = this.timers.setTimeout(loop, 0);
  }

  /** Stops campaigning; a leader hands the lease over at once by expiring it. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    // A round still running could renew after our release and hold the lease for a full term.
    await this.#inFlight;
    if (!this.#leader) return;
    this.#set(false);
    try {
      const lease = await this.#api.readNamespacedLease({ name: this.settings.name, namespace: this.settings.namespace });
      if (lease.spec?.holderIdentity === this.settings.identity) {
        await this.#api.replaceNamespacedLease({
          name: this.settings.name,
          namespace: this.settings.namespace,
          body: { ...lease, spec: { ...lease.spec, holderIdentity: undefined, renewTime: new Date(0) } },
        });
      }
    } catch (error) {
      this.logger.warn({ err: String(error) }, 'could not release the lease');
    }
  }

  /** One round: acquire, renew or observe. */
  async tick(): Promise<void> {
    const { name, namespace, identity, leaseDurationMs } = this.settings;
    const now = this.clock.now();
    try {
      let lease: V1Lease;
      try {
        lease = await this.#api.readNamespacedLease({ name, namespace });
      } catch (error) {
        if (!isStatus(error, 404)) throw error;
        await this.#api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: this.#spec(now, now, 0) } });
        return this.#renewed(now);
      }
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity;
      const renewedAt = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
      const durationMs = (spec.leaseDurationSeconds ?? leaseDurationMs / 1000) * 1000;
      if (holder === identity) {
        await this.#api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: { ...spec, renewTime: new Date(now) } } });
        return this.#renewed(now);
      }
      if (holder && renewedAt + durationMs > now) return this.#set(false);
      const transitions = (spec.leaseTransitions ?? 0) + 1;
      await this.#api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: this.#spec(now, now, transitions) } });
      this.logger.info({ identity, previous: holder ?? null }, 'acquired the operator lease');
      return this.#renewed(now);
    } catch (error) {
      // 409: another replica wrote first. Anything else: keep leading only while our lease holds.
      if (!isStatus(error, 409)) this.logger.warn({ err: String(error) }, 'lease round failed');
      if (isStatus(error, 409) || now - this.#lastRenewal >= leaseDurationMs) this.#set(false);
    }
  }

  #spec(acquiredAt: number, renewedAt: number, transitions: number): NonNullable<V1Lease['spec']> {
    return {
      holderIdentity: this.settings.identity,
      leaseDurationSeconds: Math.ceil(this.settings.leaseDurationMs / 1000),
      acquireTime: new Date(acquiredAt),
      renewTime: new Date(renewedAt),
      leaseTransitions: transitions,
    };
  }

  #renewed(now: number): void {
    if (this.#stopped) return;
    this.#lastRenewal = now;
    this.#set(true);
  }

  #set(leader: boolean): void {
    if (leader === this.#leader) return;
    this.#leader = leader;
    for (const listener of this.#listeners) listener(leader);
  }
}
