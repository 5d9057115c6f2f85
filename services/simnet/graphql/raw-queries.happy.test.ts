import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { normalizeStructTag } from '@mysten/sui/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendFromFaucet } from '../faucet/index.js';
import { CATALOG, COIN_TYPES, OBJECT_TYPES } from '../ledger/catalog.js';
import { createLedger } from '../ledger/index.js';
import type { Ledger } from '../ledger/index.js';
import { serveGraphql } from './test-server.js';

interface TxPage {
  transactions: {
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
    nodes: { digest: string; effects: { checkpoint: { sequenceNumber: number } } }[];
  };
}

const TXS_BY_SENDER = `query($sender: SuiAddress!, $first: Int, $after: String, $last: Int, $before: String) {
  transactions(filter: { sentAddress: $sender }, first: $first, after: $after, last: $last, before: $before) {
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    nodes { digest effects { checkpoint { sequenceNumber } } }
  }
}`;

describe('raw GraphQL queries against simnet', () => {
  let ledger: Ledger;
  let server: Awaited<ReturnType<typeof serveGraphql>>;
  let client: SuiGraphQLClient;
  let faucet: string;
  const sent: string[] = [];

  beforeAll(async () => {
    ledger = createLedger();
    server = await serveGraphql(ledger);
    client = new SuiGraphQLClient({ url: server.url, network: 'localnet' });
    faucet = ledger.accounts.find((a) => a.label === 'faucet')!.address;
    // Seven faucet transfers over four checkpoints, so pages cross checkpoint boundaries.
    for (let i = 0; i < 7; i++) {
      sent.push((await sendFromFaucet(ledger, Ed25519Keypair.generate().toSuiAddress(), 1_000n)).transaction.digest);
      if (i % 2 === 1) ledger.sealCheckpoint();
    }
    ledger.sealCheckpoint();
  });

  afterAll(() => server.close());

  const query = async <T>(q: string, variables: Record<string, unknown> = {}): Promise<T> => {
    const { data, errors } = await client.query({ query: q, variables });
    expect(errors).toBeUndefined();
    return data as T;
  };

  it('pages transactions by sender forwards without overlap or gaps', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { transactions }: TxPage = await query<TxPage>(TXS_BY_SENDER, { sender: faucet, first: 3, after });
      seen.push(...transactions.nodes.map((n) => n.digest));
      expect(transactions.pageInfo.hasPreviousPage).toBe(after !== null);
      pages++;
      if (!transactions.pageInfo.hasNextPage) break;
      after = transactions.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(sent);
  });

  it('pages transactions by sender backwards with last/before, nodes in ascending order', async () => {
    const seen: string[] = [];
    let before: string | null = null;
    for (;;) {
      const { transactions }: TxPage = await query<TxPage>(TXS_BY_SENDER, { sender: faucet, last: 2, before });
      seen.unshift(...transactions.nodes.map((n) => n.digest));
      if (!transactions.pageInfo.hasPreviousPage) break;
      before = transactions.pageInfo.startCursor;
    }
    expect(seen).toEqual(sent);
  });

  it('SDK listTransactions agrees with the raw pages', async () => {
    const page = await client.core.listTransactions({ filter: { sender: faucet }, limit: 4 } as Parameters<typeof client.core.listTransactions>[0]);
    expect(page.transactions.map((t) => t.Transaction?.digest ?? t.FailedTransaction?.digest)).toEqual(sent.slice(0, 4));
    expect(page.hasNextPage).toBe(true);
  });

  it('filters transactions by checkpoint range and by function', async () => {
    const { transactions } = await query<TxPage>(
      '{ transactions(filter: { afterCheckpoint: 0, beforeCheckpoint: 2 }) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { digest effects { checkpoint { sequenceNumber } } } } }',
    );
    expect(transactions.nodes.map((n) => n.effects.checkpoint.sequenceNumber)).toEqual([1, 1]);
    const none = await query<TxPage>('{ transactions(filter: { function: "0x2::coin::split" }) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { digest effects { checkpoint { sequenceNumber } } } } }');
    expect(none.transactions.nodes).toEqual([]);
  });

  it('decodes a programmable transaction into inputs and commands', async () => {
    const data = await query<{ transaction: { kind: { __typename: string; inputs: { nodes: { __typename: string }[] }; commands: { nodes: Record<string, unknown>[] } } } }>(
      `query($d: String!) { transaction(digest: $d) { kind { __typename ... on ProgrammableTransaction {
        inputs { nodes { __typename ... on Pure { bytes } } }
        commands { nodes { __typename
          ... on SplitCoinsCommand { coin { __typename } amounts { __typename ... on Input { ix } } }
          ... on TransferObjectsCommand { inputs { __typename ... on TxResult { cmd ix } } address { __typename ... on Input { ix } } } } }
      } } } }`,
      { d: sent[0] },
    );
    const kind = data.transaction.kind;
    expect(kind.__typename).toBe('ProgrammableTransaction');
    expect(kind.inputs.nodes.map((n) => n.__typename)).toEqual(['Pure', 'Pure']);
    expect(kind.commands.nodes).toEqual([
      { __typename: 'SplitCoinsCommand', coin: { __typename: 'GasCoin' }, amounts: [{ __typename: 'Input', ix: 0 }] },
      { __typename: 'TransferObjectsCommand', inputs: [{ __typename: 'TxResult', cmd: 0, ix: 0 }], address: { __typename: 'Input', ix: 1 } },
    ]);
  });

  it('answers signature schemes, Move object BCS and type abilities', async () => {
    const faucetKey = ledger.accounts.find((a) => a.label === 'faucet')!.keypair.getPublicKey();
    const data = await query<{
      transaction: { signatures: { scheme: { __typename: string; publicKey: string } }[] };
      object: { asMoveObject: { moveObjectBcs: string; objectBcs: string; contents: { type: { repr: string; abilities: string[] } } } };
    }>(
      `query($d: String!, $o: SuiAddress!) {
        transaction(digest: $d) { signatures { scheme { __typename ... on Ed25519Signature { publicKey } } } }
        object(address: $o) { asMoveObject { moveObjectBcs objectBcs contents { type { repr abilities } } } }
      }`,
      { d: sent[0], o: ledger.listCoins(faucet, '0x2::sui::SUI').items[0]!.objectId },
    );
    expect(data.transaction.signatures).toEqual([{ scheme: { __typename: 'Ed25519Signature', publicKey: faucetKey.toBase64() } }]);
    const moveObject = data.object.asMoveObject;
    expect(Buffer.from(moveObject.objectBcs, 'base64').includes(Buffer.from(moveObject.moveObjectBcs, 'base64'))).toBe(true);
    expect(moveObject.contents.type.abilities.sort()).toEqual(['KEY', 'STORE']);
  });

  it('reads past object versions by version, root version and checkpoint', async () => {
    const coin = ledger.listCoins(faucet, '0x2::sui::SUI').items.reduce((a, b) => (ledger.getObjectHistory(a.objectId).length >= ledger.getObjectHistory(b.objectId).length ? a : b));
    const history = ledger.getObjectHistory(coin.objectId);
    expect(history.length).toBeGreaterThan(2);
    const checkpointOf = (version: bigint) => Number(ledger.getTransaction(history.find((r) => r.version === version)!.previousTransaction)!.checkpoint);
    const second = history[1]!;
    // As of a checkpoint: the last version committed at or before it.
    const asOf = (checkpoint: number) => Number(history.filter((r) => checkpointOf(r.version) <= checkpoint).at(-1)!.version);
    const data = await query<{ exact: { version: number }; root: { version: number }; atGenesis: { version: number }; atSecond: { version: number; objectAt: { version: number } } }>(
      `query($a: SuiAddress!, $v: UInt53!, $r: UInt53!, $c: UInt53!) {
        exact: object(address: $a, version: $v) { version }
        root: object(address: $a, rootVersion: $r) { version }
        atGenesis: object(address: $a, atCheckpoint: 0) { version }
        atSecond: object(address: $a, atCheckpoint: $c) { version objectAt(checkpoint: 0) { version } }
      }`,
      { a: coin.objectId, v: Number(second.version), r: Number(second.version), c: checkpointOf(second.version) },
    );
    expect(data).toEqual({
      exact: { version: Number(second.version) },
      root: { version: Number(second.version) },
      atGenesis: { version: Number(history[0]!.version) },
      atSecond: { version: asOf(checkpointOf(second.version)), objectAt: { version: Number(history[0]!.version) } },
    });
    const around = await query<{ object: { objectVersionsBefore: { nodes: { version: number }[] }; objectVersionsAfter: { nodes: { version: number }[] } } }>(
      'query($a: SuiAddress!, $v: UInt53!) { object(address: $a, version: $v) { objectVersionsBefore { nodes { version } } objectVersionsAfter(filter: { beforeVersion: 1000000 }) { nodes { version } } } }',
      { a: coin.objectId, v: Number(second.version) },
    );
    const live = history.filter((r) => !('deleted' in r)).map((r) => Number(r.version));
    expect(around.object.objectVersionsBefore.nodes.map((n) => n.version)).toEqual(live.filter((v) => v < Number(second.version)));
    expect(around.object.objectVersionsAfter.nodes.map((n) => n.version)).toEqual(live.filter((v) => v > Number(second.version)));
    const future = await client.query({ query: 'query($a: SuiAddress!, $c: UInt53!) { object(address: $a, atCheckpoint: $c) { version } }', variables: { a: coin.objectId, c: Number(ledger.latestCheckpoint().sequenceNumber) + 1 } });
    expect(future.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('reads checkpoints by number, digest and range with their transactions', async () => {
    const data = await query<{
      checkpoint: { sequenceNumber: number; digest: string; previousCheckpointDigest: string; transactions: { nodes: { digest: string }[] } };
      checkpoints: { nodes: { sequenceNumber: number }[] };
      latest: { sequenceNumber: number };
    }>(`{
      checkpoint(sequenceNumber: 1) { sequenceNumber digest previousCheckpointDigest transactions { nodes { digest } } }
      checkpoints(filter: { afterCheckpoint: 1 }, first: 2) { nodes { sequenceNumber } }
      latest: checkpoint { sequenceNumber }
    }`);
    expect(data.checkpoint.transactions.nodes.map((n) => n.digest)).toEqual(sent.slice(0, 2));
    expect(data.checkpoint.previousCheckpointDigest).toBe(ledger.getCheckpoint(0n)!.digest);
    expect(data.checkpoints.nodes.map((n) => n.sequenceNumber)).toEqual([2, 3]);
    expect(data.latest.sequenceNumber).toBe(Number(ledger.latestCheckpoint().sequenceNumber));
    const byDigest = await query<{ checkpoint: { sequenceNumber: number } }>('query($d: String) { checkpoint(digest: $d) { sequenceNumber } }', { d: data.checkpoint.digest });
    expect(byDigest.checkpoint.sequenceNumber).toBe(1);
  });

  it('lists the epoch validators with their contents', async () => {
    const data = await query<{
      epoch: { epochId: number; referenceGasPrice: string; totalTransactions: number; validatorSet: { activeValidators: { nodes: { contents: { json: { metadata: { name: string; sui_address: string } } } }[] } } };
    }>('{ epoch { epochId referenceGasPrice totalTransactions validatorSet { activeValidators { nodes { contents { json } } } } } }');
    const validators = ledger.systemState().validators;
    expect(data.epoch.validatorSet.activeValidators.nodes.map((n) => n.contents.json.metadata.sui_address)).toEqual(validators.map((v) => v.address));
    expect(data.epoch.referenceGasPrice).toBe(ledger.referenceGasPrice().toString());
    expect(data.epoch.totalTransactions).toBe(Number(ledger.latestCheckpoint().networkTotalTransactions));
  });

  it('answers effects version, unchanged consensus objects and the epoch system packages', async () => {
    const data = await query<{ epoch: { systemPackages: { nodes: { address: string }[] } }; transaction: { effects: { version: number; unchangedConsensusObjects: { nodes: unknown[] } } } }>(
      'query($d: String!) { epoch { systemPackages { nodes { address } } } transaction(digest: $d) { effects { version unchangedConsensusObjects { nodes { __typename } } } } }',
      { d: sent[0] },
    );
    expect(data.transaction.effects).toEqual({ version: 2, unchangedConsensusObjects: { nodes: [] } });
    expect(data.epoch.systemPackages.nodes.map((n) => n.address)).toContain('0x0000000000000000000000000000000000000000000000000000000000000002');
  });

  it('resolves name records and addresses by name', async () => {
    const record = ledger.listNames()[0]!;
    const data = await query<{ nameRecord: { domain: string; target: { address: string } }; address: { address: string; defaultNameRecord: { domain: string } } }>(
      'query($n: String!) { nameRecord(name: $n) { domain target { address } } address(name: $n) { address defaultNameRecord { domain } } }',
      { n: record.name },
    );
    expect(data.nameRecord).toEqual({ domain: record.name, target: { address: record.targetAddress } });
    expect(data.address.address).toBe(record.targetAddress);
  });

  it('answers types in canonical form', async () => {
    const data = await query<{ type: { repr: string } }>('{ type(type: "0x2::coin::Coin<vector<0x2::sui::SUI>>") { repr } }');
    expect(data.type.repr).toBe(normalizeStructTag('0x2::coin::Coin<vector<0x2::sui::SUI>>'));
    const field = '0x2::dynamic_field::Field<u64, 0x3::staking_pool::PoolTokenExchangeRate>';
    const pair = await query<{ type: { repr: string } }>(`{ type(type: "${field}") { repr } }`);
    expect(pair.type.repr).toBe(normalizeStructTag(field));
    const missing = await query<{ type: null }>('{ type(type: "0x2::nope::Nope") { repr } }');
    expect(missing.type).toBeNull();
  });

  it('answers type layouts from the packages on chain', async () => {
    const data = await query<{ type: { layout: unknown } }>('{ type(type: "0x2::coin::Coin<0x2::sui::SUI>") { layout } }');
    const id = { struct: { type: normalizeStructTag('0x2::object::ID'), fields: [{ name: 'bytes', layout: 'address' }] } };
    expect(data.type.layout).toEqual({
      struct: {
        type: normalizeStructTag('0x2::coin::Coin<0x2::sui::SUI>'),
        fields: [
          { name: 'id', layout: { struct: { type: normalizeStructTag('0x2::object::UID'), fields: [{ name: 'id', layout: id }] } } },
          { name: 'balance', layout: { struct: { type: normalizeStructTag('0x2::balance::Balance<0x2::sui::SUI>'), fields: [{ name: 'value', layout: 'u64' }] } } },
        ],
      },
    });
  });

  it('lists live objects by type, owner kind and owner', async () => {
    const OBJECTS = 'query($f: ObjectFilter!) { objects(filter: $f) { nodes { address owner { __typename } asMoveObject { contents { type { repr } } } } } }';
    type Objects = { objects: { nodes: { address: string; owner: { __typename: string }; asMoveObject: { contents: { type: { repr: string } } } }[] } };
    const suiUsdc = normalizeStructTag(OBJECT_TYPES.pool(COIN_TYPES.SUI, COIN_TYPES.USDC));
    const exact = await query<Objects>(OBJECTS, { f: { type: suiUsdc } });
    expect(exact.objects.nodes.map((n) => n.asMoveObject.contents.type.repr)).toEqual([suiUsdc]);
    const pools = await query<Objects>(OBJECTS, { f: { type: `${CATALOG.dexPackage}::pool::Pool`, ownerKind: 'SHARED' } });
    expect(pools.objects.nodes).toHaveLength(2);
    expect(pools.objects.nodes.every((n) => n.owner.__typename === 'Shared')).toBe(true);
    const coins = await query<Objects>(OBJECTS, { f: { owner: faucet, type: '0x2::coin' } });
    expect(coins.objects.nodes.length).toBe(ledger.listOwnedObjects(faucet, { type: '0x2::coin::Coin' }, { limit: 1000 }).items.length);
    const { errors } = await client.query({ query: OBJECTS, variables: { f: { ownerKind: 'SHARED' } } });
    expect(errors![0]!.message).toBe('Query.objects needs an owner or a type');
  });

  it('lists published packages', async () => {
    const data = await query<{ packages: { nodes: { address: string }[] } }>('{ packages(first: 50) { nodes { address } } }');
    const genesisPackages = ledger.listTransactions().items[0]!.effects.changedObjects.filter((c) => c.isPackage).map((c) => c.objectId);
    expect(data.packages.nodes.map((n) => n.address).sort()).toEqual([...genesisPackages].sort());
    const later = await query<{ packages: { nodes: unknown[] } }>('{ packages(filter: { afterCheckpoint: 0 }) { nodes { address } } }');
    expect(later.packages.nodes).toEqual([]);
  });

  it('reads a package function as getMoveFunction does', async () => {
    const { function: fn } = await client.core.getMoveFunction({ packageId: '0x2', moduleName: 'coin', name: 'split' });
    expect(fn.name).toBe('split');
    expect(fn.parameters.length).toBeGreaterThan(0);
  });

  it('gives Node types global ids that Query.node resolves', async () => {
    const ids = await query<{ checkpoint: { id: string }; epoch: { id: string }; transaction: { id: string }; address: { id: string }; object: { id: string; version: number } }>(
      'query($d: String!, $a: SuiAddress!) { checkpoint(sequenceNumber: 1) { id } epoch { id } transaction(digest: $d) { id } address(address: $a) { id } object(address: "0x2") { id version } }',
      { d: sent[0], a: faucet },
    );
    const nodes = await query<{ c: { sequenceNumber: number }; e: { epochId: number }; t: { digest: string }; a: { address: string }; o: { __typename: string; version: number } }>(
      `query($c: ID!, $e: ID!, $t: ID!, $a: ID!, $o: ID!) {
        c: node(id: $c) { ... on Checkpoint { sequenceNumber } }
        e: node(id: $e) { ... on Epoch { epochId } }
        t: node(id: $t) { ... on Transaction { digest } }
        a: node(id: $a) { ... on Address { address } }
        o: node(id: $o) { __typename ... on Object { version } }
      }`,
      { c: ids.checkpoint.id, e: ids.epoch.id, t: ids.transaction.id, a: ids.address.id, o: ids.object.id },
    );
    expect(nodes).toEqual({
      c: { sequenceNumber: 1 },
      e: { epochId: Number(ledger.currentEpoch().epoch) },
      t: { digest: sent[0] },
      a: { address: faucet },
      o: { __typename: 'Object', version: ids.object.version },
    });
  });

  it('reports service limits', async () => {
    const data = await query<{ serviceConfig: Record<string, number | null> }>(
      `{ serviceConfig {
        maxPageSize(type: "Query", field: "transactions") defaultPageSize(type: "Query", field: "transactions")
        objectChanges: maxPageSize(type: "TransactionEffects", field: "objectChanges")
        notPaginated: maxPageSize(type: "Query", field: "chainIdentifier")
        maxQueryDepth maxMultiGetSize maxOutputNodes maxQueryPayloadSize
      } }`,
    );
    expect(data.serviceConfig).toEqual({
      maxPageSize: 50,
      defaultPageSize: 20,
      objectChanges: 1024,
      notPaginated: null,
      maxQueryDepth: 20,
      maxMultiGetSize: 200,
      maxOutputNodes: 1_000_000,
      maxQueryPayloadSize: 5_000,
    });
  });
});
