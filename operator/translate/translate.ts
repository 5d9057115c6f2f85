import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Network } from '../../services/core/index.js';
import { slugify } from '../../services/identity/index.js';
import { SPEC_SCHEMAS, type ApiKeySpec, type Kind, type OnchainPlanSpec, type ProjectSpec, type WarpStreamSpec } from '../crds/schemas.js';
import type { GatewayIR, WarpStreamIR, OnchainPlanIR, ApiKeyIR, NetworkIR } from '../ir.js';
import { READY, secretNameTaken, statusFor, type Outcome } from './conditions.js';
import {
  FINALIZER,
  KEY_ID_ANNOTATION,
  type CustomResource,
  type KeyRow,
  type OwnedSecret,
  type ProjectRow,
  type ResourceRef,
  type RowAction,
  type StatusUpdate,
  type Translation,
  type TranslationInput,
  type TranslationSettings,
} from './types.js';
import { billingCronJob, staleBillingCronJobs, staleStreamWorkerDeployments, streamWorkerDeployment, streamWorkerName } from './workloads.js';

const LABEL_VALUE_MAX = 63;

/**
 * The pure translation: custom resources + the database's view → the gateway IR, statuses, row
 * actions and workloads. No I/O and no clock but `settings.now`: the same input gives the same
 * output, which the golden files pin.
 */
export function translate(input: TranslationInput): Translation {
  const { settings, cluster, database } = input;
  const statuses: StatusUpdate[] = [];
  const actions: RowAction[] = [];
  const byKind = (kind: Kind) => cluster.resources.filter((r) => r.kind === kind).sort(byName);
  const organizations = new Set(database.organizations.map((o) => o.id));

  // Projects: a row per (organization, slug), created when missing.
  const projectRows = new Map<string, ProjectRow>();
  for (const resource of byKind('Project')) {
    const spec = parse<ProjectSpec>(resource);
    if (!spec.ok) {
      statuses.push(statusFor(resource, spec.outcome, false, settings.now));
      continue;
    }
    const name = spec.value.displayName?.trim() || resource.metadata.name;
    const slug = slugify(name);
    if (!organizations.has(spec.value.organizationId)) {
      statuses.push(statusFor(resource, notReady('OrganizationNotFound', `No organization ${spec.value.organizationId}.`), false, settings.now));
      continue;
    }
    const row = database.projects.find((p) => p.organizationId === spec.value.organizationId && p.slug === slug);
    if (!row) {
      actions.push({ action: 'createProject', ref: refOf(resource), organizationId: spec.value.organizationId, name, network: spec.value.network });
      statuses.push(statusFor(resource, notReady('Creating', 'The project row is being created.'), true, settings.now));
      continue;
    }
    if (row.network !== spec.value.network) {
      statuses.push(statusFor(resource, notReady('NetworkMismatch', `Project ${row.id} serves ${row.network}.`), false, settings.now, { projectId: row.id, slug }));
      continue;
    }
    projectRows.set(`${resource.metadata.namespace}/${resource.metadata.name}`, row);
    statuses.push(statusFor(resource, READY, false, settings.now, { projectId: row.id, slug }));
  }

  const keys: ApiKeyIR[] = [];
  const lookups: KeyLookups = {
    secrets: new Map(cluster.secrets.map((secret) => [`${secret.metadata.namespace}/${secret.metadata.name}`, secret])),
    rows: new Map(database.keys.map((row) => [row.id, row])),
    projects: projectRows,
  };
  for (const resource of byKind('ApiKey')) {
    const result = translateKey(settings, resource, lookups);
    statuses.push(result.status);
    actions.push(...result.actions);
    if (result.key) keys.push(result.key);
  }
  // Keys made through the API belong to the same organizations and get the same limits.
  const linked = new Set(keys.map((k) => k.keyId));
  const networkOfProject = new Map(database.projects.map((p) => [p.id, p.network]));
  for (const row of database.keys) {
    const network = row.projectId ? networkOfProject.get(row.projectId) : undefined;
    if (linked.has(row.id) || !network) continue;
    keys.push(keyIR(row, network));
  }

  const streams: WarpStreamIR[] = [];
  for (const resource of byKind('WarpStream')) {
    const spec = parse<WarpStreamSpec>(resource);
    const project = spec.ok ? projectRows.get(`${resource.metadata.namespace}/${spec.value.project}`) : undefined;
    if (!spec.ok) statuses.push(statusFor(resource, spec.outcome, false, settings.now));
    else if (!project) statuses.push(statusFor(resource, notReady('ProjectNotReady', `Project ${spec.value.project} is not ready.`), false, settings.now));
    else {
      streams.push({
        id: `${resource.metadata.namespace}/${resource.metadata.name}`,
        name: resource.metadata.name,
        network: project.network,
        type: spec.value.type,
        projectId: project.id,
        enabled: spec.value.enabled,
      });
      statuses.push(statusFor(resource, READY, false, settings.now, { network: project.network, workers: streamWorkerName(project.network) }));
    }
  }

  const plans: OnchainPlanIR[] = [];
  const workloads: Record<string, unknown>[] = [];
  for (const resource of byKind('OnchainPlan')) {
    const spec = parse<OnchainPlanSpec>(resource);
    if (resource.metadata.deletionTimestamp !== undefined) {
      statuses.push(statusFor(resource, notReady('Deleting', 'The billing CronJob is being deleted.'), true, settings.now));
    } else if (resource.metadata.name.length > LABEL_VALUE_MAX) {
      // The CronJob names its plan in a label, and a label value holds at most 63 characters.
      statuses.push(statusFor(resource, notReady('NameTooLong', `An OnchainPlan's name has at most ${LABEL_VALUE_MAX} characters.`), false, settings.now));
    } else if (!spec.ok) statuses.push(statusFor(resource, spec.outcome, false, settings.now));
    else if (!organizations.has(spec.value.organizationId)) {
      statuses.push(statusFor(resource, notReady('OrganizationNotFound', `No organization ${spec.value.organizationId}.`), false, settings.now));
    } else {
      plans.push({ name: resource.metadata.name, organizationId: spec.value.organizationId, network: spec.value.network, tier: spec.value.tier, billingDay: spec.value.billingDay });
      const cronJob = billingCronJob(settings, resource, spec.value);
      workloads.push(cronJob);
      statuses.push(statusFor(resource, READY, false, settings.now, { cronJob: (cronJob['metadata'] as { name: string }).name }));
    }
  }

  const expectedLoad = new Map<Network, number>();
  for (const resource of byKind('WarpStream')) {
    const spec = parse<WarpStreamSpec>(resource);
    const stream = streams.find((s) => s.id === `${resource.metadata.namespace}/${resource.metadata.name}`);
    if (spec.ok && stream?.enabled) expectedLoad.set(stream.network, (expectedLoad.get(stream.network) ?? 0) + spec.value.expectedEventsPerSecond);
  }
  const enabledStreams = (network: Network) => streams.filter((s) => s.enabled && s.network === network).length;
  for (const { network } of settings.hosts) workloads.push(streamWorkerDeployment(settings, network, enabledStreams(network), expectedLoad.get(network) ?? 0));

  const deletions = [...staleBillingCronJobs(settings, byKind('OnchainPlan'), cluster.cronJobs), ...staleStreamWorkerDeployments(settings, cluster.deployments)];
  const ir = gatewayIR(input, keys, streams, plans);
  return { ir, statuses, actions, workloads, deletions };
}

interface KeyLookups {
  secrets: Map<string, OwnedSecret>;
  rows: Map<string, KeyRow>;
  projects: Map<string, ProjectRow>;
}

function translateKey(
  settings: TranslationSettings,
  resource: CustomResource,
  { secrets, rows, projects }: KeyLookups,
): { status: StatusUpdate; actions: RowAction[]; key?: ApiKeyIR } {
  const ref = refOf(resource);
  const spec = parse<ApiKeySpec>(resource);
  const secretName = spec.ok ? (spec.value.secretName ?? `${resource.metadata.name}-apikey`) : `${resource.metadata.name}-apikey`;
  const secret = secrets.get(`${resource.metadata.namespace}/${secretName}`);
  const keyId = secret?.metadata.annotations?.[KEY_ID_ANNOTATION];
  const named = keyId === undefined ? undefined : rows.get(keyId);
  const hasFinalizer = (resource.metadata.finalizers ?? []).includes(FINALIZER);
  // The key this ApiKey was given, as the operator recorded it in its status (tenants write specs
  // and Secrets, not statuses).
  const recordedKeyId = typeof resource.status?.['keyId'] === 'string' ? resource.status['keyId'] : undefined;
  // Every status keeps that record until the key is replaced: a status without it (the Project
  // gone, the spec invalid, a refused row change) forgot the key, and its deletion revoked nothing.
  const recorded = keyRecord(resource);
  const project = spec.ok ? projects.get(`${resource.metadata.namespace}/${spec.value.project}`) : undefined;
  // A Secret is anyone's to write, labels and annotations included: the key it names is this
  // ApiKey's only if the operator recorded it so, or, before any record, if it is a key of this
  // ApiKey's project. Else another tenant's Secret could take over (edit, revoke) a key of theirs.
  // Another ApiKey's Secret (the same spec.secretName) names that one's key, never this one's.
  const foreignSecret = secret?.metadata.ownerUids !== undefined && !secret.metadata.ownerUids.includes(resource.metadata.uid);
  const row = named && !foreignSecret && (named.id === recordedKeyId || (recordedKeyId === undefined && project !== undefined && named.projectId === project.id)) ? named : undefined;
  // The recorded key when the Secret no longer names it (deleted, or overwritten): its value is
  // lost to everyone but whoever read it, so it is revoked, not left enabled beside its successor.
  const lost = recordedKeyId !== undefined && row === undefined ? rows.get(recordedKeyId) : undefined;

  if (resource.metadata.deletionTimestamp !== undefined) {
    // The finalizer's work: revoke the key, then let the resource go.
    const actions: RowAction[] = [];
    if (row?.enabled) actions.push({ action: 'disableKey', ref, organizationId: row.organizationId, keyId: row.id });
    if (lost?.enabled) actions.push({ action: 'disableKey', ref, organizationId: lost.organizationId, keyId: lost.id });
    if (hasFinalizer) actions.push({ action: 'removeFinalizer', ref });
    return { status: statusFor(resource, notReady('Deleting', 'The key is being revoked.'), true, settings.now, recorded), actions };
  }
  if (!spec.ok) return { status: statusFor(resource, spec.outcome, false, settings.now, recorded), actions: [] };
  // Writing a new key into another ApiKey's Secret would take it from its owner.
  if (foreignSecret) {
    return { status: statusFor(resource, secretNameTaken(secretName), false, settings.now, recorded), actions: [] };
  }
  if (!project) {
    return { status: statusFor(resource, notReady('ProjectNotReady', `Project ${spec.value.project} is not ready.`), false, settings.now, recorded), actions: [] };
  }
  const name = spec.value.displayName ?? resource.metadata.name;
  if (!hasFinalizer) {
    return { status: statusFor(resource, notReady('Creating', 'Adding the revocation finalizer.'), true, settings.now, recorded), actions: [{ action: 'addFinalizer', ref }] };
  }
  const rateLimit = { perKeyRps: spec.value.rateLimit?.perKeyRps ?? null, perIpRps: spec.value.rateLimit?.perIpRps ?? null };
  if (!row) {
    // The recorded key is revoked here and replaced: the record moves to the new key (kept, it
    // would refuse the new key the Secret names and make another at every rebuild).
    return {
      status: statusFor(resource, notReady('Creating', 'The key is being created.'), true, settings.now),
      actions: [
        ...(lost?.enabled ? [{ action: 'disableKey' as const, ref, organizationId: lost.organizationId, keyId: lost.id }] : []),
        {
          action: 'createKey',
          ref,
          organizationId: project.organizationId,
          projectId: project.id,
          name,
          scopes: [...spec.value.scopes],
          allowedOrigins: [...spec.value.allowedOrigins],
          rateLimit: spec.value.rateLimit,
          expiresInDays: spec.value.expiresInDays,
          secretName,
          enabled: spec.value.enabled,
        },
      ],
    };
  }
  const fields = { keyId: row.id, secretName, network: project.network, projectId: project.id, expiresAt: row.expiresAt };
  const key = keyIR(row, project.network);
  if (!spec.value.enabled) {
    const actions: RowAction[] = row.enabled ? [{ action: 'disableKey', ref, organizationId: row.organizationId, keyId: row.id }] : [];
    return { status: statusFor(resource, notReady('Disabled', 'The key is disabled.'), actions.length > 0, settings.now, fields), actions, key: { ...key, enabled: false } };
  }
  if (!row.enabled) {
    return { status: statusFor(resource, notReady('KeyDisabled', 'The key was disabled; a disabled key is never enabled again. Create a new ApiKey.'), false, settings.now, fields), actions: [], key };
  }
  const changes: Extract<RowAction, { action: 'updateKey' }>['changes'] = {};
  if (row.name !== name) changes.name = name;
  if (!sameSet(row.scopes, spec.value.scopes)) changes.scopes = [...spec.value.scopes];
  const origins = [...new Set(spec.value.allowedOrigins.map((o) => o.trim().toLowerCase()))];
  if (!sameSet(row.allowedOrigins, origins)) changes.allowedOrigins = [...spec.value.allowedOrigins];
  if (row.rateLimit.perKeyRps !== rateLimit.perKeyRps || row.rateLimit.perIpRps !== rateLimit.perIpRps) changes.rateLimit = rateLimit;
  const pending = Object.keys(changes).length > 0;
  const actions: RowAction[] = pending ? [{ action: 'updateKey', ref, organizationId: row.organizationId, keyId: row.id, changes }] : [];
  const expired = Date.parse(row.expiresAt) <= Date.parse(settings.now);
  const outcome = expired ? notReady('Expired', `The key expired at ${row.expiresAt}.`) : READY;
  return { status: statusFor(resource, outcome, pending, settings.now, fields), actions, key };
}

/** The key and Secret an ApiKey's status records, as status fields. */
function keyRecord(resource: CustomResource): Record<string, unknown> {
  const { keyId, secretName } = resource.status ?? {};
  return {
    ...(typeof keyId === 'string' ? { keyId } : {}),
    ...(typeof secretName === 'string' ? { secretName } : {}),
  };
}

function keyIR(row: KeyRow, network: Network): ApiKeyIR {
  return {
    keyId: row.id,
    projectId: row.projectId ?? '',
    organizationId: row.organizationId,
    network,
    scopes: [...row.scopes].sort(),
    enabled: row.enabled,
    expiresAt: row.expiresAt,
    perKeyRps: row.rateLimit.perKeyRps,
    perIpRps: row.rateLimit.perIpRps,
  };
}

function gatewayIR(input: TranslationInput, keys: ApiKeyIR[], streams: WarpStreamIR[], plans: OnchainPlanIR[]): GatewayIR {
  const { settings, database } = input;
  const originsOf = new Map(database.keys.map((k) => [k.id, k.allowedOrigins]));
  const networks: NetworkIR[] = [...settings.hosts]
    .sort((a, b) => a.network.localeCompare(b.network))
    .map((hosts) => {
      const live = keys.filter((k) => k.network === hosts.network && k.enabled);
      const origins = live.map((k) => originsOf.get(k.keyId) ?? []);
      const corsOrigins = origins.some((o) => o.length === 0) ? ['*'] : [...new Set(origins.flat())].sort();
      return { network: hosts.network, httpHosts: [...hosts.http].sort(), grpcHosts: [...hosts.grpc].sort(), corsOrigins: live.length === 0 ? [] : corsOrigins };
    });
  const content = {
    backends: settings.backends,
    networks,
    keys: keys.sort((a, b) => a.keyId.localeCompare(b.keyId)),
    streams: streams.sort((a, b) => a.id.localeCompare(b.id)),
    plans: plans.sort((a, b) => a.name.localeCompare(b.name)),
  };
  const version = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 16);
  return { version, ...content };
}

type Parsed<T> = { ok: true; value: T } | { ok: false; outcome: Outcome };

function parse<T>(resource: CustomResource): Parsed<T> {
  const schema: z.ZodType = SPEC_SCHEMAS[resource.kind];
  const result = schema.safeParse(resource.spec ?? {});
  if (result.success) return { ok: true, value: result.data as T };
  const issue = result.error.issues[0]!;
  return { ok: false, outcome: notReady('InvalidSpec', `spec.${issue.path.join('.')}: ${issue.message}`) };
}

function notReady(reason: string, message: string): Outcome {
  return { ready: false, reason, message };
}

function refOf(resource: CustomResource): ResourceRef {
  return { kind: resource.kind, namespace: resource.metadata.namespace, name: resource.metadata.name, uid: resource.metadata.uid };
}

function byName(a: CustomResource, b: CustomResource): number {
  return `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}
