import type { EncodedSnapshot } from './encoded-snapshot.js';
import { kindOfTypeUrl, type ResourceKind } from './type-urls.js';

/** The fields of envoy.service.discovery.v3.DiscoveryRequest we read (proto-loader, keepCase). */
export interface DiscoveryRequest {
  version_info?: string;
  node?: { id?: string; cluster?: string };
  resource_names?: string[];
  type_url?: string;
  response_nonce?: string;
  error_detail?: { code?: number; message?: string } | null;
}

export interface DiscoveryResponse {
  version_info: string;
  resources: { type_url: string; value: Buffer }[];
  type_url: string;
  nonce: string;
}

/** A client's acceptance of one of our responses. */
export interface XdsAck {
  nodeId: string;
  kind: ResourceKind;
  typeUrl: string;
  /** The version the client now runs. */
  version: string;
}

/** A client's rejection of one of our responses. */
export interface XdsNack {
  nodeId: string;
  kind: ResourceKind;
  typeUrl: string;
  /** The version the client rejected (the one we sent with that nonce). */
  rejectedVersion: string;
  /** The last version the client accepted ('' if none). */
  acceptedVersion: string;
  /** The client's error_detail.message: which resource and why. */
  message: string;
}

export type RequestOutcome =
  | { kind: 'respond'; typeUrl: string }
  | { kind: 'ack'; typeUrl: string; ack: XdsAck }
  | { kind: 'nack'; nack: XdsNack }
  | { kind: 'ignore' };

interface Subscription {
  wildcard: boolean;
  names: Set<string>;
  /** The nonce of our latest response of this type, and the version it carried. */
  nonce?: string;
  sentVersion?: string;
}

/**
 * One ADS stream's state of the world: per type URL, what the client subscribed to (a wildcard,
 * as Envoy does for listeners and clusters, or names, as proxyless gRPC does) and what we last
 * sent. Pure bookkeeping; the server does the I/O.
 */
export class AdsStreamState {
  nodeId = '';
  private readonly subscriptions = new Map<string, Subscription>();
  private nonces = 0;

  /** Applies a request and says what to do about it (xDS protocol: stale nonces are ignored). */
  onRequest(request: DiscoveryRequest): RequestOutcome {
    if (request.node?.id) this.nodeId = request.node.id;
    const typeUrl = request.type_url ?? '';
    const kind = kindOfTypeUrl(typeUrl);
    if (!kind) return { kind: 'ignore' };
    const existing = this.subscriptions.get(typeUrl);
    const nonce = request.response_nonce ?? '';
    if (existing?.nonce !== undefined && nonce !== '' && nonce !== existing.nonce) return { kind: 'ignore' };
    const names = request.resource_names ?? [];
    const wildcard = names.length === 0 || names.includes('*');
    const subscription: Subscription = { ...existing, wildcard, names: new Set(names.filter((name) => name !== '*')) };
    this.subscriptions.set(typeUrl, subscription);
    if (request.error_detail && existing?.sentVersion !== undefined) {
      return {
        kind: 'nack',
        nack: {
          nodeId: this.nodeId,
          kind,
          typeUrl,
          rejectedVersion: existing.sentVersion,
          acceptedVersion: request.version_info ?? '',
          message: request.error_detail.message ?? '',
        },
      };
    }
    const changed = !existing || existing.nonce === undefined || existing.wildcard !== wildcard || !sameNames(existing.names, subscription.names);
    return changed ? { kind: 'respond', typeUrl } : { kind: 'ack', typeUrl, ack: { nodeId: this.nodeId, kind, typeUrl, version: request.version_info ?? '' } };
  }

  /** The type URLs this client subscribes to. */
  subscribedTypes(): string[] {
    return [...this.subscriptions.keys()];
  }

  /** A complete state-of-the-world response for one type (every subscribed resource that exists). */
  response(typeUrl: string, snapshot: EncodedSnapshot): DiscoveryResponse {
    const subscription = this.subscriptions.get(typeUrl);
    const available = snapshot.resources.get(typeUrl) ?? new Map<string, Buffer>();
    const names = subscription && !subscription.wildcard ? [...subscription.names].sort() : [...available.keys()];
    const resources = names.flatMap((name) => {
      const value = available.get(name);
      return value ? [{ type_url: typeUrl, value }] : [];
    });
    const nonce = String(++this.nonces);
    if (subscription) Object.assign(subscription, { nonce, sentVersion: snapshot.version });
    return { version_info: snapshot.version, resources, type_url: typeUrl, nonce };
  }
}

function sameNames(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((name) => b.has(name));
}
