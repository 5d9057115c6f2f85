import type { Clock, CursorCodec } from '../../core/index.js';
import type { Database } from '../../db/index.js';
import type { EndpointPolicy } from '../definitions/endpoint-url.js';
import type { SecretBox } from '../definitions/signing-secret.js';

/** What the webhook management routes need; handed over by the composition root. */
export interface WebhookRouteDeps {
  database: Database;
  clock: Clock;
  /** Seals new secrets (create, rotate) with the key `suigw streams` opens them with. */
  box: SecretBox;
  policy: EndpointPolicy;
  /** Signs the delivery log's pagination cursors (the REST cursors' codec). */
  cursors: CursorCodec;
}
