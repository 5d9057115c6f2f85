// Writes the method table of docs/jsonrpc.md from the served methods' declarations:
//   node bin/run-ts.js scripts/jsonrpc-table.ts
// A test (services/cli/jsonrpc-table.test.ts) fails when the table is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { SERVED_JSONRPC_METHODS } from '../services/cli/jsonrpc-methods.js';
import { jsonRpcMethodTable, withMethodTable } from '../services/jsonrpc/index.js';

const path = new URL('../docs/jsonrpc.md', import.meta.url);
await writeFile(path, withMethodTable(await readFile(path, 'utf8'), jsonRpcMethodTable(SERVED_JSONRPC_METHODS)));
