import { randomUUID } from 'node:crypto';

/**
 * The storage half of the Kubernetes API-server test double: objects with resourceVersion,
 * generation, finalizers, the status subresource, owner-reference garbage collection, an event
 * history for watches (compactable, so old versions answer 410 Gone), and server-side apply's
 * field ownership. Arrays are owned as a whole (like `x-kubernetes-list-type: atomic`).
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects are open JSON documents. */
export type KubeObject = Record<string, any>;

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  statusSubresource: boolean;
  shortNames?: string[];
  printerColumns?: { name: string; type: string; jsonPath: string; description?: string }[];
  /** The CRD's structural schema: its `default`s are applied on every write, as the API server does. */
  schema?: KubeObject;
}

/** Structural defaulting: a missing property with a `default` gets it, in objects that exist. */
export function applyDefaults(schema: KubeObject | undefined, value: unknown): void {
  if (!schema || !isPlainObject(value)) return;
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, KubeObject>)) {
    if (value[name] === undefined && property.default !== undefined) value[name] = clone(property.default);
    applyDefaults(property, value[name]);
  }
}

export interface WatchEvent {
  rv: number;
  typeKey: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

export class StoreError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export function typeKey(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${type.group}/${type.plural}`;
}

const clone = <T>(value: T): T => structuredClone(value);

function isPlainObject(value: unknown): value is KubeObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Leaf paths of a document (arrays are leaves), as JSON-encoded path arrays. */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (!isPlainObject(value) || Object.keys(value).length === 0) return prefix.length === 0 ? [] : [prefix];
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, [...prefix, key]));
}

function getPath(value: unknown, path: string[]): unknown {
  let current = value;
  for (const part of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

function setPath(target: KubeObject, path: string[], value: unknown): void {
  let current = target;
  for (const part of path.slice(0, -1)) {
    if (!isPlainObject(current[part])) current[part] = {};
    current = current[part];
  }
  current[path[path.length - 1]!] = clone(value);
}

function deletePath(target: KubeObject, path: string[]): void {
  const parent = getPath(target, path.slice(0, -1));
  if (isPlainObject(parent)) delete parent[path[path.length - 1]!];
}

/** The paths server-side apply tracks: everything but identity and server-owned metadata. */
function ownedPaths(object: KubeObject): string[][] {
  const { metadata, apiVersion: _a, kind: _k, ...rest } = object;
  const meta = JSON.parse(JSON.stringify(isPlainObject(metadata) ? { labels: metadata.labels, annotations: metadata.annotations } : {})) as KubeObject;
  return leafPaths(Object.keys(meta).length > 0 ? { ...rest, metadata: meta } : rest);
}

/** FieldsV1 (`f:spec: {f:replicas: {}}`) from leaf paths, as the real server records it. */
function toFieldsV1(paths: string[][]): KubeObject {
  const root: KubeObject = {};
  for (const path of paths) {
    let node = root;
    for (const part of path) node = node[`f:${part}`] ??= {};
  }
  return root;
}

function fromFieldsV1(fields: KubeObject, prefix: string[] = []): string[][] {
  const entries = Object.entries(fields).filter(([key]) => key.startsWith('f:'));
  if (entries.length === 0) return prefix.length === 0 ? [] : [prefix];
  return entries.flatMap(([key, child]) => fromFieldsV1(child as KubeObject, [...prefix, key.slice(2)]));
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const result: KubeObject = isPlainObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

type Listener = (event: WatchEvent) => void;

export class ObjectStore {
  readonly #objects = new Map<string, KubeObject>();
  readonly #history: WatchEvent[] = [];
  readonly #listeners = new Set<Listener>();
  #rv = 1;
  /** Watches from a resourceVersion older than this answer 410 Gone. */
  #oldestRv = 1;

  constructor(
    readonly types: ResourceType[],
    private readonly now: () => number = Date.now,
  ) {}

  get resourceVersion(): number {
    return this.#rv;
  }

  get oldestResourceVersion(): number {
    return this.#oldestRv;
  }

  /** Forgets the event history, as etcd compaction does: older watches get 410 Gone. */
  compact(): void {
    this.#history.length = 0;
    this.#oldestRv = this.#rv;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  eventsSince(rv: number, type: ResourceType): WatchEvent[] {
    if (rv < this.#oldestRv) throw new StoreError(410, 'Expired', `too old resource version: ${rv} (${this.#oldestRv})`);
    return this.#history.filter((event) => event.rv > rv && event.typeKey === typeKey(type));
  }

  list(type: ResourceType, namespace?: string): KubeObject[] {
    const prefix = `${typeKey(type)}/${namespace ?? ''}`;
    return [...this.#objects.entries()]
      .filter(([key]) => (namespace === undefined ? key.startsWith(`${typeKey(type)}/`) : key.startsWith(`${prefix}/`)))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, object]) => clone(object));
  }

  get(type: ResourceType, namespace: string, name: string): KubeObject {
    const object = this.#objects.get(this.#key(type, namespace, name));
    if (!object) throw new StoreError(404, 'NotFound', `${type.plural}.${type.group} "${name}" not found`);
    return clone(object);
  }

  create(type: ResourceType, namespace: string, body: KubeObject, manager = 'unknown'): KubeObject {
    const name = body.metadata?.name;
    if (typeof name !== 'string' || name === '') throw new StoreError(422, 'Invalid', 'metadata.name: Required value');
    const key = this.#key(type, namespace, name);
    if (this.#objects.has(key)) throw new StoreError(409, 'AlreadyExists', `${type.plural}.${type.group} "${name}" already exists`);
    const object = clone(body);
    if (type.statusSubresource) delete object.status;
    applyDefaults(type.schema, object);
    object.apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
    object.kind = type.kind;
    object.metadata = {
      ...object.metadata,
      ...(type.namespaced ? { namespace } : {}),
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    delete object.metadata.resourceVersion;
    object.metadata.managedFields = [];
    this.#recordOwnership(object, manager, 'Update', ownedPaths(object));
    return this.#commit(type, key, object, 'ADDED');
  }

  /** PUT: optimistic concurrency on resourceVersion; a status subresource keeps status apart. */
  update(type: ResourceType, namespace: string, name: string, body: KubeObject, options: { status?: boolean; manager?: string } = {}): KubeObject {
    const current = this.get(type, namespace, name);
    const expected = body.metadata?.resourceVersion;
    if (expected !== undefined && expected !== current.metadata.resourceVersion) {
      throw new StoreError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${type.plural}.${type.group} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    return this.#replace(type, current, body, options);
  }

  patch(type: ResourceType, namespace: string, name: string, patch: KubeObject, options: { status?: boolean; manager?: string } = {}): KubeObject {
    const current = this.get(type, namespace, name);
    return this.#replace(type, current, mergePatch(current, patch) as KubeObject, options);
  }

  /**
   * Server-side apply: the manager's applied fields merge into the object; a field another
   * manager owns with a different value is a 409 Conflict unless forced; fields this manager
   * applied before and no longer applies are removed.
   */
  apply(type: ResourceType, namespace: string, name: string, applied: KubeObject, manager: string, force: boolean): KubeObject {
    const key = this.#key(type, namespace, name);
    const existing = this.#objects.get(key);
    if (!existing) {
      const created = this.create(type, namespace, { ...applied, metadata: { ...applied.metadata, name } }, manager);
      const object = this.#objects.get(key)!;
      object.metadata.managedFields = [];
      this.#recordOwnership(object, manager, 'Apply', ownedPaths(applied));
      return { ...created, metadata: { ...created.metadata, managedFields: clone(object.metadata.managedFields) } };
    }
    const current = clone(existing);
    const paths = ownedPaths(applied);
    const conflicts: string[] = [];
    for (const entry of current.metadata.managedFields as KubeObject[]) {
      if (entry.manager === manager) continue;
      for (const owned of fromFieldsV1(entry.fieldsV1 ?? {})) {
        const clash = paths.find((path) => JSON.stringify(path) === JSON.stringify(owned));
        if (clash && JSON.stringify(getPath(applied, clash)) !== JSON.stringify(getPath(current, clash))) {
          conflicts.push(`conflict with "${entry.manager}": .${clash.join('.')}`);
        }
      }
    }
    if (conflicts.length > 0 && !force) throw new StoreError(409, 'Conflict', `Apply failed with ${conflicts.length} conflict(s): ${conflicts.join('; ')}`);
    const previous = (current.metadata.managedFields as KubeObject[]).find((entry) => entry.manager === manager && entry.operation === 'Apply');
    const next = clone(current);
    for (const path of previous ? fromFieldsV1(previous.fieldsV1 ?? {}) : []) {
      const stillApplied = paths.some((p) => JSON.stringify(p) === JSON.stringify(path));
      if (!stillApplied) deletePath(next, path);
    }
    for (const path of paths) setPath(next, path, getPath(applied, path));
    if (force) this.#releaseOwnership(next, manager, paths);
    this.#recordOwnership(next, manager, 'Apply', paths, true);
    return this.#replace(type, current, next, { manager, keepOwnership: true });
  }

  delete(type: ResourceType, namespace: string, name: string): KubeObject {
    const current = this.get(type, namespace, name);
    if ((current.metadata.finalizers ?? []).length > 0) {
      if (current.metadata.deletionTimestamp) return current;
      const marked = clone(current);
      marked.metadata.deletionTimestamp = new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return this.#commit(type, this.#key(type, namespace, name), marked, 'MODIFIED');
    }
    return this.#remove(type, current);
  }

  #replace(
    type: ResourceType,
    current: KubeObject,
    body: KubeObject,
    options: { status?: boolean; manager?: string; keepOwnership?: boolean },
  ): KubeObject {
    const next = clone(current);
    if (options.status) {
      next.status = clone(body.status);
    } else {
      applyDefaults(type.schema, body);
      for (const [field, value] of Object.entries(body)) {
        if (field === 'metadata' || (field === 'status' && type.statusSubresource)) continue;
        next[field] = clone(value);
      }
      for (const field of Object.keys(next)) {
        if (!(field in body) && !['metadata', 'apiVersion', 'kind', 'status'].includes(field)) delete next[field];
      }
      if (!type.statusSubresource && !('status' in body)) delete next.status;
      const meta = body.metadata ?? {};
      for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
        if (meta[field] === undefined) delete next.metadata[field];
        else next.metadata[field] = clone(meta[field]);
      }
      if (options.keepOwnership) next.metadata.managedFields = clone(body.metadata.managedFields);
    }
    const { metadata: _m1, status: _s1, ...specBefore } = current;
    const { metadata: _m2, status: _s2, ...specAfter } = next;
    const specChanged = JSON.stringify(specBefore) !== JSON.stringify(specAfter);
    if (specChanged) next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    if (!options.keepOwnership) {
      const changed = ownedPaths(next).filter((path) => JSON.stringify(getPath(next, path)) !== JSON.stringify(getPath(current, path)));
      if (changed.length > 0) {
        this.#releaseOwnership(next, options.manager ?? 'unknown', changed);
        this.#recordOwnership(next, options.manager ?? 'unknown', 'Update', changed);
      }
    }
    if (JSON.stringify(next) === JSON.stringify(current)) return current;
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) return this.#remove(type, next);
    return this.#commit(type, this.#key(type, current.metadata.namespace ?? '', current.metadata.name), next, 'MODIFIED');
  }

  #remove(type: ResourceType, object: KubeObject): KubeObject {
    const key = this.#key(type, object.metadata.namespace ?? '', object.metadata.name);
    this.#objects.delete(key);
    const removed = this.#emit(type, object, 'DELETED');
    // Garbage collection: dependents whose owner is gone go too.
    for (const dependentType of this.types) {
      for (const dependent of this.list(dependentType)) {
        const owners = (dependent.metadata.ownerReferences ?? []) as KubeObject[];
        if (owners.some((owner) => owner.uid === object.metadata.uid)) {
          this.delete(dependentType, dependent.metadata.namespace ?? '', dependent.metadata.name);
        }
      }
    }
    return removed;
  }

  #recordOwnership(object: KubeObject, manager: string, operation: 'Apply' | 'Update', paths: string[][], replace = false): void {
    const entries = (object.metadata.managedFields ??= []) as KubeObject[];
    const existing = entries.find((entry) => entry.manager === manager && entry.operation === operation);
    const before = existing && !replace ? fromFieldsV1(existing.fieldsV1 ?? {}) : [];
    const merged = [...before, ...paths.filter((path) => !before.some((p) => JSON.stringify(p) === JSON.stringify(path)))];
    const fieldsV1 = toFieldsV1(merged);
    // A no-op write leaves the entry (and so the object's resourceVersion) as it was.
    if (existing && JSON.stringify(existing.fieldsV1) === JSON.stringify(fieldsV1)) return;
    const entry = {
      manager,
      operation,
      apiVersion: object.apiVersion,
      time: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      fieldsType: 'FieldsV1',
      fieldsV1,
    };
    if (existing) entries.splice(entries.indexOf(existing), 1, entry);
    else entries.push(entry);
  }

  /** Other managers lose the given fields (a forced apply or an update takes them over). */
  #releaseOwnership(object: KubeObject, manager: string, paths: string[][]): void {
    const taken = new Set(paths.map((path) => JSON.stringify(path)));
    object.metadata.managedFields = (object.metadata.managedFields as KubeObject[])
      .map((entry) => {
        if (entry.manager === manager) return entry;
        const kept = fromFieldsV1(entry.fieldsV1 ?? {}).filter((path) => !taken.has(JSON.stringify(path)));
        return { ...entry, fieldsV1: toFieldsV1(kept) };
      })
      .filter((entry) => Object.keys(entry.fieldsV1).length > 0);
  }

  #commit(type: ResourceType, key: string, object: KubeObject, eventType: 'ADDED' | 'MODIFIED'): KubeObject {
    this.#objects.set(key, object);
    return this.#emit(type, object, eventType);
  }

  #emit(type: ResourceType, object: KubeObject, eventType: WatchEvent['type']): KubeObject {
    this.#rv += 1;
    object.metadata.resourceVersion = String(this.#rv);
    const event: WatchEvent = { rv: this.#rv, typeKey: typeKey(type), type: eventType, object: clone(object) };
    this.#history.push(event);
    for (const listener of this.#listeners) listener(event);
    return clone(object);
  }

  #key(type: ResourceType, namespace: string, name: string): string {
    return `${typeKey(type)}/${type.namespaced ? namespace : ''}/${name}`;
  }
}
