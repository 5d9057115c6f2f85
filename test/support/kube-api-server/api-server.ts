import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { ObjectStore, StoreError, type KubeObject, type ResourceType, type WatchEvent } from './object-store.js';

/**
 * A Kubernetes API-server test double speaking the real REST protocol over HTTP, for the
 * operator's tests and the real `kubectl`: discovery, list and watch with resourceVersion (410
 * Gone after `compact()`), create/update with 409 conflicts, merge patch, server-side apply
 * (`application/apply-patch+yaml`, field ownership), the status subresource, finalizers, server
 * side printing (`as=Table`, printer columns) and `/openapi/v2` (empty, as kubectl accepts).
 * No authentication or admission: what it checks is the protocol, not policy.
 */

export const BUILTIN_TYPES: ResourceType[] = [
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', singular: 'secret', namespaced: true, statusSubresource: false },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', singular: 'deployment', namespaced: true, statusSubresource: true, shortNames: ['deploy'] },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', singular: 'cronjob', namespaced: true, statusSubresource: true, shortNames: ['cj'] },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', singular: 'lease', namespaced: true, statusSubresource: false },
];

/** The resource types a CustomResourceDefinition document declares (its served versions). */
export function typesFromCrd(crd: KubeObject): ResourceType[] {
  const spec = crd.spec;
  return (spec.versions as KubeObject[])
    .filter((version) => version.served)
    .map((version) => ({
      group: spec.group,
      version: version.name,
      kind: spec.names.kind,
      plural: spec.names.plural,
      singular: spec.names.singular,
      namespaced: spec.scope === 'Namespaced',
      statusSubresource: version.subresources?.status !== undefined,
      shortNames: spec.names.shortNames,
      printerColumns: version.additionalPrinterColumns,
      schema: version.schema?.openAPIV3Schema,
    }));
}

export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  /** The bearer token of the caller: tests give each client its own to tell writers apart. */
  token: string | undefined;
}

interface Route {
  type: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  status: boolean;
}

export class KubeApiDouble {
  readonly store: ObjectStore;
  readonly requests: RecordedRequest[] = [];
  /** Watches answered 410 Gone (their resourceVersion was compacted away). */
  goneAnswers = 0;
  readonly #server: Server;
  readonly #watches = new Set<ServerResponse>();
  #failures: { count: number; status: number } = { count: 0, status: 500 };
  readonly #refusals: { matches: (method: string, path: string, dryRun: boolean) => boolean; status: number }[] = [];
  readonly #readFailures: { matches: (path: string) => boolean; status: number }[] = [];
  #hooks: { matches: (method: string, path: string) => boolean; run: () => void }[] = [];

  constructor(types: ResourceType[], now: () => number = Date.now) {
    this.store = new ObjectStore([...BUILTIN_TYPES, ...types], now);
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => sendStatus(res, 500, 'InternalError', String(error)));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.closeWatches();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Ends every open watch, as an API server restart or timeout does. */
  closeWatches(): void {
    for (const res of this.#watches) res.end();
    this.#watches.clear();
  }

  get pendingFailures(): number {
    return this.#failures.count;
  }

  /** The next `count` resource requests (not discovery) answer `status`. */
  failNext(count: number, status = 500): void {
    this.#failures = { count, status };
  }

  /**
   * Every later write that `matches` answers `status` (a namespace's RBAC refusing the operator, a
   * name too long); `dryRun` says whether the write is a dry run (refused alike unless told apart).
   */
  refuseWrites(matches: (method: string, path: string, dryRun: boolean) => boolean, status = 403): void {
    this.#refusals.push({ matches, status });
  }

  /** Every later read (GET) that `matches` answers `status` (an API server failing one object's reads). */
  failReads(matches: (path: string) => boolean, status = 500): void {
    this.#readFailures.push({ matches, status });
  }

  /** Runs `run` once, just before the first request that `matches` is served (to stage races). */
  beforeNext(matches: (method: string, path: string) => boolean, run: () => void): void {
    this.#hooks.push({ matches, run });
  }

  type(plural: string): ResourceType {
    const type = this.store.types.find((t) => t.plural === plural);
    if (!type) throw new Error(`unknown resource ${plural}`);
    return type;
  }

  writesBy(token: string): RecordedRequest[] {
    return this.requests.filter((r) => r.token === token && r.method !== 'GET');
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://double');
    const method = req.method ?? 'GET';
    const auth = req.headers.authorization;
    this.requests.push({
      method,
      path: url.pathname,
      contentType: req.headers['content-type'],
      token: auth?.startsWith('Bearer ') ? auth.slice(7) : undefined,
    });
    if (this.#serveDiscovery(url.pathname, res)) return;
    const route = this.#route(url.pathname);
    if (!route) return sendStatus(res, 404, 'NotFound', `the server could not find the requested resource (${url.pathname})`);
    if (this.#failures.count > 0) {
      this.#failures.count -= 1;
      return sendStatus(res, this.#failures.status, 'InternalError', 'injected failure');
    }
    const dryRun = url.searchParams.get('dryRun') === 'All';
    const refusal = method === 'GET' ? undefined : this.#refusals.find((r) => r.matches(method, url.pathname, dryRun));
    if (refusal) return sendStatus(res, refusal.status, 'Forbidden', 'refused by the test');
    const readFailure = method === 'GET' ? this.#readFailures.find((f) => f.matches(url.pathname)) : undefined;
    if (readFailure) return sendStatus(res, readFailure.status, 'InternalError', 'read failed by the test');
    const body = method === 'GET' || method === 'DELETE' ? undefined : await readBody(req);
    const hook = this.#hooks.find((h) => h.matches(method, url.pathname));
    if (hook) {
      this.#hooks.splice(this.#hooks.indexOf(hook), 1);
      hook.run();
    }
    try {
      await this.#serveResource(method, route, url, req, res, body);
    } catch (error) {
      if (error instanceof StoreError) return sendStatus(res, error.code, error.reason, error.message);
      throw error;
    }
  }

  async #serveResource(method: string, route: Route, url: URL, req: IncomingMessage, res: ServerResponse, body: string | undefined): Promise<void> {
    const { type, name, status } = route;
    const namespace = route.namespace ?? '';
    const manager = url.searchParams.get('fieldManager') ?? 'unknown';
    const asTable = (req.headers.accept ?? '').includes('as=Table');
    // A dry run (`dryRun=All`) has passed the refusals above, as the API server's authorization and
    // admission run for it too; nothing is stored, and the answer is the object as sent.
    if (url.searchParams.get('dryRun') === 'All' && method !== 'GET' && method !== 'DELETE') {
      if (method === 'PATCH' && manager === 'unknown') return sendStatus(res, 422, 'Invalid', 'fieldManager is required for apply');
      return sendJson(res, method === 'POST' ? 201 : 200, parseBody(body));
    }
    if (method === 'GET' && name === undefined) {
      if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') return this.#watch(route, url, res);
      const items = filter(this.store.list(type, route.namespace), url);
      const rv = String(this.store.resourceVersion);
      return asTable ? sendJson(res, 200, table(type, items, rv)) : sendJson(res, 200, { apiVersion: apiVersion(type), kind: `${type.kind}List`, metadata: { resourceVersion: rv }, items });
    }
    if (method === 'POST' && name === undefined) return sendJson(res, 201, this.store.create(type, namespace, parseBody(body), manager));
    if (name === undefined) return sendStatus(res, 405, 'MethodNotAllowed', `${method} on a collection`);
    if (method === 'GET') {
      const object = this.store.get(type, namespace, name);
      return sendJson(res, 200, asTable ? table(type, [object], object.metadata.resourceVersion) : object);
    }
    if (method === 'PUT') return sendJson(res, 200, this.store.update(type, namespace, name, parseBody(body), { status, manager }));
    if (method === 'DELETE') return sendJson(res, 200, this.store.delete(type, namespace, name));
    if (method === 'PATCH') {
      const contentType = (req.headers['content-type'] ?? '').split(';')[0];
      if (contentType === 'application/apply-patch+yaml') {
        if (url.searchParams.get('fieldManager') === null) return sendStatus(res, 422, 'Invalid', 'fieldManager is required for apply');
        const force = url.searchParams.get('force') === 'true';
        return sendJson(res, 200, this.store.apply(type, namespace, name, parseBody(body), manager, force));
      }
      if (contentType === 'application/merge-patch+json' || contentType === 'application/json-patch+json' || contentType === 'application/strategic-merge-patch+json') {
        if (contentType === 'application/json-patch+json') return sendStatus(res, 415, 'UnsupportedMediaType', 'JSON patch is not supported by this double');
        return sendJson(res, 200, this.store.patch(type, namespace, name, parseBody(body), { status, manager }));
      }
      return sendStatus(res, 415, 'UnsupportedMediaType', `the body of the request was in an unknown format: ${contentType}`);
    }
    return sendStatus(res, 405, 'MethodNotAllowed', method);
  }

  #watch(route: Route, url: URL, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    // kubectl and the client wait for the headers before reading events.
    res.flushHeaders();
    const matches = (object: KubeObject): boolean =>
      (route.namespace === undefined || object.metadata.namespace === route.namespace) && filter([object], url).length > 0;
    const write = (event: Pick<WatchEvent, 'type' | 'object'>): void => {
      if (!res.writableEnded && matches(event.object)) res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    };
    const since = url.searchParams.get('resourceVersion');
    try {
      if (since === null || since === '' || since === '0') {
        for (const object of this.store.list(route.type, route.namespace)) write({ type: 'ADDED', object });
      } else {
        for (const event of this.store.eventsSince(Number(since), route.type)) write(event);
      }
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      if (error.code === 410) this.goneAnswers += 1;
      res.end(`${JSON.stringify({ type: 'ERROR', object: statusBody(error.code, error.reason, error.message) })}\n`);
      return;
    }
    const unsubscribe = this.store.subscribe((event) => {
      if (event.typeKey === `${route.type.group}/${route.type.plural}`) write(event);
    });
    this.#watches.add(res);
    res.on('close', () => {
      unsubscribe();
      this.#watches.delete(res);
    });
  }

  #route(pathname: string): Route | undefined {
    const parts = pathname.split('/').filter(Boolean);
    let group: string;
    let version: string;
    let rest: string[];
    if (parts[0] === 'api') [group, version, rest] = ['', parts[1] ?? '', parts.slice(2)];
    else if (parts[0] === 'apis') [group, version, rest] = [parts[1] ?? '', parts[2] ?? '', parts.slice(3)];
    else return undefined;
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const type = this.store.types.find((t) => t.group === group && t.version === version && t.plural === rest[0]);
    if (!type || rest.length > 3 || (rest.length === 3 && rest[2] !== 'status')) return undefined;
    return { type, namespace, name: rest[1], status: rest[2] === 'status' };
  }

  #serveDiscovery(pathname: string, res: ServerResponse): boolean {
    const types = this.store.types;
    if (pathname === '/version') {
      sendJson(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64' });
    } else if (pathname === '/openapi/v2') {
      // kubectl's client-side validation accepts an empty document (NOTES.md).
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end();
    } else if (pathname === '/api') {
      sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] });
    } else if (pathname === '/apis') {
      const groups = [...new Set(types.filter((t) => t.group !== '').map((t) => t.group))].map((name) => {
        const versions = [...new Set(types.filter((t) => t.group === name).map((t) => t.version))].map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
        return { name, versions, preferredVersion: versions[0] };
      });
      sendJson(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
    } else {
      const match = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(pathname);
      if (!match) return false;
      const [group, version] = match[1] ? ['', match[1]] : [match[2]!, match[3]!];
      const inVersion = types.filter((t) => t.group === group && t.version === version);
      if (inVersion.length === 0) return false;
      const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
      const resources = inVersion.flatMap((t) => [
        { name: t.plural, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs, shortNames: t.shortNames ?? [] },
        ...(t.statusSubresource ? [{ name: `${t.plural}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] }] : []),
      ]);
      sendJson(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources });
    }
    return true;
  }
}

function apiVersion(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

function filter(items: KubeObject[], url: URL): KubeObject[] {
  const fields = parseSelector(url.searchParams.get('fieldSelector'));
  const labels = parseSelector(url.searchParams.get('labelSelector'));
  return items.filter(
    (item) =>
      fields.every(([key, value]) => (key === 'metadata.name' ? item.metadata.name : key === 'metadata.namespace' ? item.metadata.namespace : undefined) === value) &&
      labels.every(([key, value]) => (value === undefined ? key in (item.metadata.labels ?? {}) : item.metadata.labels?.[key] === value)),
  );
}

function parseSelector(selector: string | null): [string, string | undefined][] {
  if (!selector) return [];
  return selector.split(',').map((term) => {
    const [key, value] = term.split(/==?/);
    return [key!.trim(), value?.trim()];
  });
}

/** Server-side printing as kubectl asks for it: `Name`, the printer columns (or `Age`). */
function table(type: ResourceType, items: KubeObject[], resourceVersion: string): KubeObject {
  const columns = type.printerColumns ?? [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name', priority: 0 },
      ...columns.map((c) => ({ name: c.name, type: c.type, format: '', description: c.description ?? '', priority: 0 })),
    ],
    rows: items.map((item) => ({
      cells: [item.metadata.name, ...columns.map((c) => cell(c.type, jsonPath(item, c.jsonPath)))],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: item.metadata },
    })),
  };
}

/** The JSONPath subset printer columns use: `.a.b` and `.a[?(@.k=="v")].b`. */
function jsonPath(object: KubeObject, path: string): unknown {
  let current: unknown = object;
  for (const part of path.replace(/^\./, '').split(/\.(?![^[]*\])/)) {
    if (typeof current !== 'object' || current === null) return undefined;
    const filtered = /^(\w+)\[\?\(@\.(\w+)=="([^"]*)"\)\]$/.exec(part);
    if (filtered) {
      const list = (current as KubeObject)[filtered[1]!];
      current = Array.isArray(list) ? list.find((item: KubeObject) => item?.[filtered[2]!] === filtered[3]) : undefined;
    } else {
      current = (current as KubeObject)[part];
    }
  }
  return current;
}

function cell(type: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (type === 'date' && typeof value === 'string') return humanAge(Date.now() - Date.parse(value));
  if (Array.isArray(value)) return value.join(',');
  return value;
}

function humanAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON is YAML: one parser takes both (apply patches may be either). */
function parseBody(body: string | undefined): KubeObject {
  const parsed: unknown = parseYaml(body ?? '');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new StoreError(400, 'BadRequest', 'the body must be an object');
  return parsed as KubeObject;
}

function statusBody(code: number, reason: string, message: string): KubeObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

function sendStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  sendJson(res, code, statusBody(code, reason, message));
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
