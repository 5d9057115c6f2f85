import { ApiException, CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, type Kind } from '../crds/schemas.js';
import { KINDS } from '../crds/definitions.js';
import { FINALIZER, MANAGER, type ResourceRef, type WorkloadRef } from '../translate/types.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- custom resources are open JSON documents. */
type Json = Record<string, any>;

const CONFLICT_RETRIES = 3;

export function isStatus(error: unknown, code: number): boolean {
  return error instanceof ApiException && error.code === code;
}

/**
 * The operator's writes to the API server: server-side apply under one field manager (every
 * replica uses the same one, so a new leader does not conflict with the old), status through the
 * status subresource, finalizers by update; conflicts are retried on a fresh read. Also the read a
 * key Secret's write waits for (is the name free, or the ApiKey's own).
 */
export class KubeWriter {
  readonly #objects: KubernetesObjectApi;
  readonly #custom: CustomObjectsApi;
  readonly #core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.#objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    this.#custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.#core = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** Server-side apply, forced; `dryRun`: authorized and admitted by the API server, not stored. */
  async apply(object: Json, options: { dryRun?: boolean } = {}): Promise<void> {
    await this.#objects.patch(object as KubernetesObject, undefined, options.dryRun ? 'All' : undefined, MANAGER, true, PatchStrategy.ServerSideApply);
  }

  /** Deletes a workload; one already gone (a second rebuild before the informer saw the first delete) is no error. */
  async delete(workload: WorkloadRef): Promise<void> {
    const { apiVersion, kind, namespace, name } = workload;
    try {
      await this.#objects.delete({ apiVersion, kind, metadata: { namespace, name } });
    } catch (error) {
      if (!isStatus(error, 404)) throw error;
    }
  }

  /** The Secret stored under that name, whoever wrote it (the informers see only the operator's). */
  async readSecret(namespace: string, name: string): Promise<KubernetesObject | undefined> {
    try {
      return await this.#core.readNamespacedSecret({ namespace, name });
    } catch (error) {
      if (isStatus(error, 404)) return undefined;
      throw error;
    }
  }

  /** Writes a status unless the stored one already equals it; retries on 409 with a fresh read. */
  async writeStatus(ref: ResourceRef, status: Json): Promise<'written' | 'unchanged' | 'gone'> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.#read(ref);
      if (!current || current.metadata.uid !== ref.uid) return 'gone';
      if (sameJson(current.status ?? {}, status)) return 'unchanged';
      try {
        await this.#custom.replaceNamespacedCustomObjectStatus({ ...this.#params(ref), body: { ...current, status } });
        return 'written';
      } catch (error) {
        if (!isStatus(error, 409) || attempt >= CONFLICT_RETRIES) throw error;
      }
    }
  }

  async setFinalizer(ref: ResourceRef, present: boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.#read(ref);
      if (!current || current.metadata.uid !== ref.uid) return;
      const finalizers: string[] = current.metadata.finalizers ?? [];
      if (finalizers.includes(FINALIZER) === present) return;
      const next = present ? [...finalizers, FINALIZER] : finalizers.filter((f) => f !== FINALIZER);
      try {
        await this.#custom.replaceNamespacedCustomObject({ ...this.#params(ref), body: { ...current, metadata: { ...current.metadata, finalizers: next } } });
        return;
      } catch (error) {
        if (!isStatus(error, 409) || attempt >= CONFLICT_RETRIES) throw error;
      }
    }
  }

  async #read(ref: ResourceRef): Promise<Json | undefined> {
    try {
      return (await this.#custom.getNamespacedCustomObject(this.#params(ref))) as Json;
    } catch (error) {
      if (isStatus(error, 404)) return undefined;
      throw error;
    }
  }

  #params(ref: ResourceRef): { group: string; version: string; namespace: string; plural: string; name: string } {
    return { group: API_GROUP, version: API_VERSION, namespace: ref.namespace, plural: KINDS[ref.kind as Kind].plural, name: ref.name };
  }
}

export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, canonical(v)]));
}

/** Whether every field of `desired` already has its value in `actual` (no apply needed). */
export function containsFields(actual: unknown, desired: unknown): boolean {
  if (typeof desired !== 'object' || desired === null || Array.isArray(desired)) return sameJson(actual, desired);
  if (typeof actual !== 'object' || actual === null) return false;
  return Object.entries(desired).every(([key, value]) => containsFields((actual as Json)[key], value));
}
