import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { jsonRpcMethodTable, withMethodTable } from '../jsonrpc/index.js';
import { SERVED_JSONRPC_METHODS } from './jsonrpc-methods.js';

describe('docs/jsonrpc.md', () => {
  it('carries the method table generated from the served methods (regenerate: node bin/run-ts.js scripts/jsonrpc-table.ts)', async () => {
    const table = jsonRpcMethodTable(SERVED_JSONRPC_METHODS);
    expect(table).toContain('| `suix_getBalance` | gRPC StateService.GetBalance');
    expect(table).toContain('| `sui_getChainIdentifier` | gRPC LedgerService.GetServiceInfo');
    const document = await readFile(new URL('../../docs/jsonrpc.md', import.meta.url), 'utf8');
    expect(document).toBe(withMethodTable(document, table));
  });
});
