import { KubernetesObjectApi, ListWatch, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../../services/core/index.js';
import { API_GROUP, API_VERSION, type Kind } from '../crds/schemas.js';
import { KINDS } from '../crds/definitions.js';
import { MANAGED_BY_LABEL, MANAGER } from '../translate/types.js';
import type { Timers } from './timers.js';

export interface WatchedType {
  apiVersion: string;
  kind: string;
  /** The collection path: across namespaces (`/apis/suigw.io/v1alpha1/apikeys`) or in one (`/apis/batch/v1/namespaces/suigw/cronjobs`). */
  path: string;
  /** The one namespace watched; absent: all of them. */
  namespace?: string;
  labelSelector?: string;
}

const OWNED = `${MANAGED_BY_LABEL}=${MANAGER}`;

export const CUSTOM_TYPES: Record<Kind, WatchedType> = Object.fromEntries(
  (Object.keys(KINDS) as Kind[]).map((kind) => [
    kind,
    { apiVersion: `${API_GROUP}/${API_VERSION}`, kind, path: `/apis/${API_GROUP}/${API_VERSION}/${KINDS[kind].plural}` },
  ]),
) as Record<Kind, WatchedType>;

/**
 * What the operator writes: key Secrets in the resources' namespaces (so across namespaces), the
 * stream-worker Deployments and billing CronJobs in its own (so the chart's Role there suffices).
 */
export function ownedTypes(namespace: string) {
  return {
    Secret: { apiVersion: 'v1', kind: 'Secret', path: '/api/v1/secrets', labelSelector: OWNED },
    Deployment: { apiVersion: 'apps/v1', kind: 'Deployment', path: `/apis/apps/v1/namespaces/${namespace}/deployments`, namespace, labelSelector: OWNED },
    CronJob: { apiVersion: 'batch/v1', kind: 'CronJob', path: `/apis/batch/v1/namespaces/${namespace}/cronjobs`, namespace, labelSelector: OWNED },
  } satisfies Record<string, WatchedType>;
}

/**
 * One ListWatch per watched type. The client relists by itself on 410 Gone but STOPS on any
 * other error (a failed list, a refused watch, a dropped connection that errors): we restart
 * it with a capped backoff, relisting from scratch.
 */
export class Informer {
  readonly #listWatch: ListWatch<KubernetesObject>;
  #attempt = 0;
  #stopped = false;
  #listed = false;

  constructor(
    readonly type: WatchedType,
    kubeConfig: KubeConfig,
    private readonly onChange: () => void,
    private readonly timers: Timers,
    private readonly logger: Logger,
  ) {
    const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    const list = async () => {
      const result = await objects.list(type.apiVersion, type.kind, type.namespace, undefined, undefined, undefined, undefined, type.labelSelector);
      this.#listed = true;
      return result;
    };
    this.#listWatch = new ListWatch(type.path, new Watch(kubeConfig), list, false, type.labelSelector);
    this.#listWatch.on('add', () => this.#changed());
    this.#listWatch.on('update', () => this.#changed());
    this.#listWatch.on('delete', () => this.#changed());
    this.#listWatch.on('error', (error: unknown) => this.#restart(error));
  }

  async start(): Promise<void> {
    this.#stopped = false;
    await this.#listWatch.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#listWatch.stop();
  }

  list(): readonly KubernetesObject[] {
    return this.#listWatch.list();
  }

  /** Whether the first list has arrived (an empty cache before it means "unknown", not "none"). */
  get synced(): boolean {
    return this.#listed;
  }

  #changed(): void {
    this.#attempt = 0;
    this.onChange();
  }

  #restart(error: unknown): void {
    if (this.#stopped) return;
    const delay = Math.min(30_000, 250 * 2 ** this.#attempt);
    this.#attempt += 1;
    this.logger.warn({ type: this.type.kind, err: error instanceof Error ? error.message : String(error), retryInMs: delay }, 'watch failed; restarting');
    this.timers.setTimeout(() => {
      if (!this.#stopped) this.start().catch((e: unknown) => this.#restart(e));
    }, delay);
  }
}
