import type { Condition } from '../crds/schemas.js';
import type { CustomResource, StatusUpdate } from './types.js';

export interface Outcome {
  ready: boolean;
  reason: string;
  message: string;
}

export const READY: Outcome = { ready: true, reason: 'Reconciled', message: '' };

/**
 * An ApiKey whose key Secret name is taken: by another ApiKey's Secret (seen in the informer
 * cache) or by a Secret the operator never wrote (found by the read before the write).
 */
export function secretNameTaken(secretName: string): Outcome {
  return { ready: false, reason: 'SecretNameTaken', message: `The Secret ${secretName} belongs to another resource; set another spec.secretName.` };
}

function previous(resource: CustomResource, type: Condition['type']): Condition | undefined {
  const conditions = resource.status?.['conditions'];
  return Array.isArray(conditions) ? (conditions as Condition[]).find((c) => c.type === type) : undefined;
}

export function condition(resource: CustomResource, type: Condition['type'], status: Condition['status'], reason: string, message: string, now: string): Condition {
  const generation = resource.metadata.generation ?? 1;
  const before = previous(resource, type);
  // lastTransitionTime moves only when the status does (Kubernetes API conventions).
  const lastTransitionTime = before && before.status === status ? before.lastTransitionTime : now;
  return { type, status, reason, message, observedGeneration: generation, lastTransitionTime };
}

/**
 * Ready says whether the resource does its job; Reconciled whether the operator has acted on its
 * latest generation (false while row changes are still pending).
 */
export function statusFor(
  resource: CustomResource,
  outcome: Outcome,
  pending: boolean,
  now: string,
  fields: Record<string, unknown> = {},
): StatusUpdate {
  const generation = resource.metadata.generation ?? 1;
  return {
    ref: { kind: resource.kind, namespace: resource.metadata.namespace, name: resource.metadata.name, uid: resource.metadata.uid },
    status: {
      ...fields,
      observedGeneration: generation,
      conditions: [
        condition(resource, 'Ready', outcome.ready ? 'True' : 'False', outcome.reason, outcome.message, now),
        pending
          ? condition(resource, 'Reconciled', 'False', 'Pending', 'changes are being applied', now)
          : condition(resource, 'Reconciled', 'True', 'Reconciled', '', now),
      ],
    },
  };
}

/**
 * The status of a resource whose row change was refused: the refusal is its Ready condition, and
 * the fields the translation gave it stay (an ApiKey's recorded key and Secret, which its
 * deletion revokes).
 */
export function refusedStatus(resource: CustomResource, update: StatusUpdate, refusal: Outcome, now: string): StatusUpdate {
  const fields = Object.fromEntries(Object.entries(update.status).filter(([field]) => field !== 'conditions' && field !== 'observedGeneration'));
  return statusFor(resource, refusal, false, now, fields);
}

/** What the xDS clients last said about the configuration built from the resources. */
export type EnvoyReport =
  | { accepted: true; version: string; nodeId: string; kind: string }
  | { accepted: false; version: string; nodeId: string; kind: string; message: string };

/**
 * The `EnvoyAccepted` condition: the Envoy resources translated from every custom resource form
 * one snapshot, so a client's rejection concerns them all (its message names the resource at
 * fault); it turns True again when a client accepts a later version.
 */
export function withEnvoyCondition(resource: CustomResource, update: StatusUpdate, report: EnvoyReport | undefined, now: string): StatusUpdate {
  if (!report) return update;
  const envoy = report.accepted
    ? condition(resource, 'EnvoyAccepted', 'True', 'Accepted', `version ${report.version} accepted by ${report.nodeId}`, now)
    : condition(resource, 'EnvoyAccepted', 'False', 'Rejected', `${report.nodeId} rejected ${report.kind} version ${report.version}: ${report.message}`, now);
  const conditions = ((update.status['conditions'] ?? []) as Condition[]).filter((c) => c.type !== 'EnvoyAccepted');
  return { ...update, status: { ...update.status, conditions: [...conditions, envoy] } };
}
