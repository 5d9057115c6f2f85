import type { Network } from '../services/core/index.js';
import type { Scope } from '../services/identity/index.js';

/**
 * The intermediate representation between the operator's two translation stages:
 * custom resources (+ the database's view) → `GatewayIR` (+ statuses) → Envoy resources and
 * workloads. Plain, sorted, JSON-serialisable data: both stages are pure functions tested with
 * golden files, and `version` changes exactly when the content does.
 */
export interface GatewayIR {
  /** A content hash (hex) of everything below: the xDS version of the snapshot built from it. */
  version: string;
  /** Where Envoy sends traffic: one cluster per role, endpoints from the Kubernetes Services. */
  backends: Record<BackendRole, BackendCluster>;
  /** One public virtual host set per network (sorted by network). */
  networks: NetworkIR[];
  /** Per-key caps, for the rate limit service's descriptors (sorted by keyId). */
  keys: ApiKeyIR[];
  /** Warp streams, for the stream workers' Deployment (sorted by id). */
  streams: WarpStreamIR[];
  /** On-chain plans, for the billing CronJobs (sorted by name). */
  plans: OnchainPlanIR[];
}

export type BackendRole = 'gateway' | 'grpc' | 'authz' | 'ratelimit' | 'streams';

export interface BackendCluster {
  /** `suigw-gateway`, ...: the Envoy cluster name. */
  name: string;
  /** HTTP/2 (grpc, authz, ratelimit) or HTTP/1.1 (gateway, streams) towards the service. */
  protocol: 'http1' | 'http2';
  endpoints: { address: string; port: number }[];
  /** Per-call timeout Envoy applies (ext_authz 200 ms, ratelimit 20 ms by Envoy's defaults). */
  timeoutMs: number;
}

export interface NetworkIR {
  network: Network;
  /** Hosts of the HTTP API (REST, JSON-RPC, GraphQL, management, Warp), e.g. `mainnet.api.example.com`. */
  httpHosts: string[];
  /** Hosts of the gRPC / gRPC-Web API. */
  grpcHosts: string[];
  /** Origins allowed by CORS on this network: the union of the keys' allowed origins, `*` when any key is unrestricted. */
  corsOrigins: string[];
}

export interface ApiKeyIR {
  keyId: string;
  projectId: string;
  organizationId: string;
  network: Network;
  scopes: Scope[];
  enabled: boolean;
  /** ISO 8601, or null when the key never expires. */
  expiresAt: string | null;
  /** Per-key and per-IP requests per second, when the key sets them. */
  perKeyRps: number | null;
  perIpRps: number | null;
}

export interface WarpStreamIR {
  id: string;
  name: string;
  network: Network;
  type: 'event' | 'address' | 'coin' | 'object';
  projectId: string;
  enabled: boolean;
}

export interface OnchainPlanIR {
  name: string;
  organizationId: string;
  network: Network;
  /** The plan's tier, e.g. `growth`. */
  tier: string;
  /** Day of month the charge is due (1–31; short months charge on their last day). */
  billingDay: number;
}
