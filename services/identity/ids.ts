import { randomBytes } from 'node:crypto';
import { toBase58 } from '@mysten/sui/utils';

/** Opaque, prefixed identifiers (`org_…`, `proj_…`, `key_…`): readable in logs, unguessable. */
export function newId(prefix: 'org' | 'proj' | 'key' | 'chal' | 'grant'): string {
  return `${prefix}_${toBase58(randomBytes(12))}`;
}
