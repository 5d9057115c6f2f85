import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LedgerReader } from '../ledger/index.js';
import { createGraphqlHandler } from './index.js';
import type { GraphqlServiceOptions } from './index.js';

/** Serves GraphQL over a ledger on a loopback port, for tests that do not need all of simnet. */
export async function serveGraphql(ledger: LedgerReader, options: GraphqlServiceOptions = {}): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(createGraphqlHandler(ledger, options));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
