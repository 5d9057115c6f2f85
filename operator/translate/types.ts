import type { ContainerResources, Network } from '../../services/core/index.js';
import type { Scope } from '../../services/identity/index.js';
import type { BackendCluster, BackendRole, GatewayIR } from '../ir.js';
import type { Condition, Kind } from '../crds/schemas.js';

/** The slice of a Kubernetes object the translation reads. */
export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  generation?: number;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** The uids of the object's owners (`metadata.ownerReferences`). */
  ownerUids?: string[];
}

export interface CustomResource {
  kind: Kind;
  metadata: ObjectMeta;
  spec: unknown;
  status?: Record<string, unknown>;
}

export interface OwnedSecret {
  metadata: ObjectMeta;
}

/** A workload the operator applied, as its informer holds it. */
export interface OwnedWorkload {
  metadata: ObjectMeta;
}

/** What the informers hold: the four kinds, the Secrets, the Deployments and the billing CronJobs the operator wrote. */
export interface ClusterState {
  resources: CustomResource[];
  secrets: OwnedSecret[];
  /** The operator's Deployments in its own namespace (the stream workers). */
  deployments: OwnedWorkload[];
  /** The operator's CronJobs in its own namespace. */
  cronJobs: OwnedWorkload[];
}

export interface ProjectRow {
  id: string;
  organizationId: string;
  slug: string;
  network: Network;
}

export interface KeyRow {
  id: string;
  organizationId: string;
  projectId: string | null;
  name: string;
  scopes: Scope[];
  allowedOrigins: string[];
  rateLimit: { perKeyRps: number | null; perIpRps: number | null };
  enabled: boolean;
  expiresAt: string;
}

/** The database as the translation needs it: the organizations the CRs name, with their rows. */
export interface DatabaseView {
  organizations: { id: string; tier: string }[];
  projects: ProjectRow[];
  keys: KeyRow[];
}

export interface TranslationSettings {
  /** ISO 8601; the time conditions record when they change. */
  now: string;
  /** The namespace the operator's workloads live in. */
  namespace: string;
  hosts: { network: Network; http: string[]; grpc: string[] }[];
  backends: Record<BackendRole, BackendCluster>;
  image: string;
  /** The Secret whose keys (SUIGW_SECRET, DATABASE_URL, REDIS_URL, any other secret) are the environment of the stream workers and billing CronJobs. */
  envSecret: string;
  /** The ConfigMap whose keys are the rest of their environment (the chart's `config.env`); absent: none. */
  envConfigMap?: string;
  /** Events per second one stream worker carries (the replica formula's divisor). */
  eventsPerWorker: number;
  maxStreamWorkers: number;
  /** The `resources` of a stream worker's container and of a billing Job's (SUIGW_OPERATOR_STREAMS_RESOURCES, SUIGW_OPERATOR_BILLING_RESOURCES). */
  streamsResources: ContainerResources;
  billingResources: ContainerResources;
}

export interface TranslationInput {
  settings: TranslationSettings;
  cluster: ClusterState;
  database: DatabaseView;
}

export interface ResourceRef {
  kind: Kind;
  namespace: string;
  name: string;
  uid: string;
}

/** Row changes, done by the effects through the identity modules the management API uses. */
export type RowAction =
  | { action: 'createProject'; ref: ResourceRef; organizationId: string; name: string; network: Network }
  | {
      action: 'createKey';
      ref: ResourceRef;
      organizationId: string;
      projectId: string;
      name: string;
      scopes: Scope[];
      allowedOrigins: string[];
      rateLimit: { perKeyRps?: number | null; perIpRps?: number | null } | undefined;
      expiresInDays: number;
      secretName: string;
      enabled: boolean;
    }
  | {
      action: 'updateKey';
      ref: ResourceRef;
      organizationId: string;
      keyId: string;
      changes: { name?: string; scopes?: Scope[]; allowedOrigins?: string[]; rateLimit?: { perKeyRps: number | null; perIpRps: number | null } };
    }
  | { action: 'disableKey'; ref: ResourceRef; organizationId: string; keyId: string }
  | { action: 'addFinalizer'; ref: ResourceRef }
  | { action: 'removeFinalizer'; ref: ResourceRef };

export interface StatusUpdate {
  ref: ResourceRef;
  status: Record<string, unknown> & { observedGeneration: number; conditions: Condition[] };
}

export interface Translation {
  ir: GatewayIR;
  statuses: StatusUpdate[];
  actions: RowAction[];
  /** Deployments and CronJobs to server-side apply, complete (apply removes what is left out). */
  workloads: Record<string, unknown>[];
  /**
   * Workloads to delete: billing CronJobs whose OnchainPlan is gone (no owner reference crosses
   * namespaces), stream-worker Deployments of networks no longer served.
   */
  deletions: WorkloadRef[];
}

export interface WorkloadRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export const FINALIZER = 'suigw.io/revoke-key';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGER = 'suigw-operator';
export const KEY_ID_ANNOTATION = 'suigw.io/key-id';
