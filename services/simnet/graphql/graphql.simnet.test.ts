import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet } from '../index.js';
import type { RunningSimnet } from '../index.js';

interface TxPage {
  transactions: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: { digest: string; sender: { address: string } }[] };
}

describe('GraphQL on a started simnet', () => {
  let simnet: RunningSimnet;
  let client: SuiGraphQLClient;

  beforeAll(async () => {
    simnet = await startSimnet({ autoStart: false, transactionsPerCheckpoint: 4 });
    for (let i = 0; i < 5; i++) await simnet.produceCheckpoint();
    client = new SuiGraphQLClient({ url: simnet.graphqlUrl, network: 'localnet' });
  });

  afterAll(() => simnet.stop());

  it('serves the chain id and the latest checkpoint the producer sealed', async () => {
    expect((await client.core.getChainIdentifier()).chainIdentifier).toBe(simnet.chainId);
    const { data } = await client.query({ query: '{ checkpoint { sequenceNumber networkTotalTransactions } }', variables: {} });
    expect(data).toEqual({
      checkpoint: {
        sequenceNumber: Number(simnet.ledger.latestCheckpoint().sequenceNumber),
        networkTotalTransactions: Number(simnet.ledger.latestCheckpoint().networkTotalTransactions),
      },
    });
  });

  it('pages every produced transaction exactly once', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const { data }: { data?: unknown } = await client.query({
        query: 'query($after: String) { transactions(first: 7, after: $after) { pageInfo { hasNextPage endCursor } nodes { digest sender { address } } } }',
        variables: { after },
      });
      const { transactions } = data as TxPage;
      seen.push(...transactions.nodes.map((n) => n.digest));
      if (!transactions.pageInfo.hasNextPage) break;
      after = transactions.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(Number(simnet.ledger.latestCheckpoint().networkTotalTransactions));
  });

  it('lists the events the producer emitted', async () => {
    const { data, errors } = await client.query({ query: '{ events(last: 5) { nodes { contents { type { repr } json } transaction { digest } } } }', variables: {} });
    expect(errors).toBeUndefined();
    const nodes = (data as { events: { nodes: { transaction: { digest: string } }[] } }).events.nodes;
    for (const node of nodes) expect(simnet.ledger.getTransaction(node.transaction.digest)?.checkpoint).toBeDefined();
  });
});
