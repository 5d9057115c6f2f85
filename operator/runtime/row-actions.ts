import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiError, type Clock } from '../../services/core/index.js';
import type { Database } from '../../services/db/index.js';
import { createKey, createProject, disableKey, updateKey } from '../../services/identity/index.js';
import { planOf } from '../../services/plans/plan-table.js';
import { API_GROUP, API_VERSION } from '../crds/schemas.js';
import { secretNameTaken, type Outcome } from '../translate/conditions.js';
import { KEY_ID_ANNOTATION, MANAGED_BY_LABEL, MANAGER, type OwnedSecret, type RowAction } from '../translate/types.js';
import type { KubeWriter } from './kube-writer.js';

export interface RowActionDeps {
  database: Database;
  clock: Clock;
  writer: KubeWriter;
  /** Secrets written but not yet seen by the informer (the operator's, shared): a rebuild must not create their key again. */
  writtenSecrets: Map<string, OwnedSecret>;
}

/**
 * The leader's row changes of one translation (services/identity): projects, keys and their
 * Secrets, finalizers. A refusal is that resource's Ready condition, never the whole rebuild's.
 */
export class RowActions {
  readonly #deps: RowActionDeps;

  constructor(deps: RowActionDeps) {
    this.#deps = deps;
  }

  /** Row changes through the identity module; a refusal becomes the resource's Ready condition. */
  async run(actions: RowAction[]): Promise<{ failures: Map<string, Outcome>; applied: number }> {
    const failures = new Map<string, Outcome>();
    let applied = 0;
    for (const action of actions) {
      try {
        const refusal = await this.#runAction(action);
        if (refusal) failures.set(refKey(action.ref), refusal);
        else applied += 1;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failures.set(refKey(action.ref), { ready: false, reason: error.code, message: error.message });
      }
    }
    return { failures, applied };
  }

  /** One row change; a refusal that is no API error (a Secret name taken) is returned. */
  async #runAction(action: RowAction): Promise<Outcome | undefined> {
    const { database, clock } = this.#deps;
    switch (action.action) {
      case 'addFinalizer':
      case 'removeFinalizer':
        await this.#deps.writer.setFinalizer(action.ref, action.action === 'addFinalizer');
        return undefined;
      case 'createProject':
        await createProject(database, clock, action.organizationId, { name: action.name, network: action.network }, planOf);
        return undefined;
      case 'updateKey':
        await updateKey(database, { kind: 'operator' }, action.organizationId, action.keyId, action.changes);
        return undefined;
      case 'disableKey':
        await disableKey(database, clock, action.organizationId, action.keyId);
        return undefined;
      case 'createKey':
        return this.#createKey(action);
    }
  }

  async #createKey(action: Extract<RowAction, { action: 'createKey' }>): Promise<Outcome | undefined> {
    const { database, clock } = this.#deps;
    // The informers see only the Secrets the operator labelled. Into a Secret of that name that
    // is not this ApiKey's (a TLS Secret, another application's credentials), the forced apply
    // below would write the key beside the owner's data and take those fields from them.
    const existing = await this.#readKeySecret(action);
    if (existing && !(existing.metadata?.ownerReferences ?? []).some((owner) => owner.uid === action.ref.uid)) return secretNameTaken(action.secretName);
    // The write is tried first as a dry run (the API server's RBAC and admission decide it as
    // for the real one): a Secret it refuses makes no key row at all. Without it, every retry of
    // a refused write left one more key row behind, disabled.
    await this.#dryRun(action, keySecret(action, { id: 'dry-run', apiKey: '' }));
    const created = await createKey(database, clock, { kind: 'operator' }, {
      organizationId: action.organizationId,
      projectId: action.projectId,
      name: action.name,
      scopes: action.scopes,
      allowedOrigins: action.allowedOrigins,
      rateLimit: action.rateLimit ?? undefined,
      expiresInDays: action.expiresInDays,
    });
    const secret = keySecret(action, created);
    try {
      await this.#deps.writer.apply(secret);
    } catch (error) {
      // A key whose value nobody holds must not stay usable.
      await disableKey(database, clock, action.organizationId, created.id);
      // This ApiKey's failure, in its status: thrown as is, it aborted the whole rebuild, every
      // other tenant's resources waited, and each retry a second later made one more key row.
      throw new ApiError('INTERNAL_ERROR', {
        message: `The key's Secret ${action.ref.namespace}/${action.secretName} could not be written (${error instanceof Error ? error.message : String(error)}); the key made for it was disabled.`,
        cause: error,
      });
    }
    this.#deps.writtenSecrets.set(`${action.ref.namespace}/${action.secretName}`, { metadata: { ...secret.metadata, uid: '', ownerUids: [action.ref.uid] } });
    if (!action.enabled) await disableKey(database, clock, action.organizationId, created.id);
    return undefined;
  }

  /** The Secret's write as a dry run; a refusal is this ApiKey's failure, no key made. */
  async #dryRun(action: Extract<RowAction, { action: 'createKey' }>, secret: ReturnType<typeof keySecret>): Promise<void> {
    try {
      await this.#deps.writer.apply(secret, { dryRun: true });
    } catch (error) {
      throw new ApiError('INTERNAL_ERROR', {
        message: `The key's Secret ${action.ref.namespace}/${action.secretName} could not be written (${error instanceof Error ? error.message : String(error)}); no key was made.`,
        cause: error,
      });
    }
  }

  /** The Secret of that name as stored; an API server error is this ApiKey's failure, no key made. */
  async #readKeySecret(action: Extract<RowAction, { action: 'createKey' }>): Promise<KubernetesObject | undefined> {
    try {
      return await this.#deps.writer.readSecret(action.ref.namespace, action.secretName);
    } catch (error) {
      throw new ApiError('INTERNAL_ERROR', {
        message: `The key's Secret ${action.ref.namespace}/${action.secretName} could not be read (${error instanceof Error ? error.message : String(error)}); no key was made.`,
        cause: error,
      });
    }
  }
}

/** The key's Secret, owned by its ApiKey (deleting the ApiKey deletes it). */
function keySecret(action: Extract<RowAction, { action: 'createKey' }>, key: { id: string; apiKey: string }) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: action.secretName,
      namespace: action.ref.namespace,
      labels: { [MANAGED_BY_LABEL]: MANAGER },
      annotations: { [KEY_ID_ANNOTATION]: key.id },
      ownerReferences: [{ apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'ApiKey', name: action.ref.name, uid: action.ref.uid, controller: true, blockOwnerDeletion: true }],
    },
    data: { apiKey: Buffer.from(key.apiKey).toString('base64') },
  };
}

/** The key of a resource in the failures map: kind, namespace and name. */
export function refKey(ref: { kind: string; namespace: string; name: string }): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}
