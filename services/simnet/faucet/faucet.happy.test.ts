import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { SuiGraphQLClient } from '@mysten/sui/graphql';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedger } from '../ledger/index.js';
import type { Ledger } from '../ledger/index.js';
import { serveGraphql } from '../graphql/test-server.js';
import { FAUCET_AMOUNT_MIST, FAUCET_AMOUNT_USDC, createFaucetHandler } from './index.js';
import { COIN_TYPES } from '../ledger/catalog.js';

describe('faucet: requestSuiFromFaucetV2 funds a fresh address', () => {
  let ledger: Ledger;
  let faucetHost: string;
  let closeFaucet: () => Promise<void>;
  let graphql: Awaited<ReturnType<typeof serveGraphql>>;

  beforeAll(async () => {
    ledger = createLedger();
    const server = createServer(createFaucetHandler(ledger));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    faucetHost = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closeFaucet = () => new Promise((resolve) => server.close(() => resolve()));
    graphql = await serveGraphql(ledger);
  });

  afterAll(async () => {
    await closeFaucet();
    await graphql.close();
  });

  it('sends a coin in a real transaction, visible through GraphQL after the next checkpoint', async () => {
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const response = await requestSuiFromFaucetV2({ host: faucetHost, recipient });
    expect(response.status).toBe('Success');
    const [coin] = response.coins_sent!;
    expect(coin!.amount).toBe(Number(FAUCET_AMOUNT_MIST));

    const client = new SuiGraphQLClient({ url: graphql.url, network: 'localnet' });
    expect((await client.core.getBalance({ owner: recipient })).balance.balance).toBe(FAUCET_AMOUNT_MIST.toString());

    ledger.sealCheckpoint();
    const tx = await client.core.getTransaction({ digest: coin!.transferTxDigest, include: { effects: true, balanceChanges: true, transaction: true } });
    expect(tx.Transaction!.status.success).toBe(true);
    expect(tx.Transaction!.balanceChanges).toContainEqual({ address: recipient, coinType: expect.stringMatching(/::sui::SUI$/), amount: FAUCET_AMOUNT_MIST.toString() });
    expect(tx.Transaction!.effects.changedObjects.map((c) => c.objectId)).toContain(coin!.id);
    expect(tx.Transaction!.transaction.sender).toBe(ledger.accounts.find((a) => a.label === 'faucet')!.address);

    const { objects } = await client.core.listCoins({ owner: recipient });
    expect(objects).toEqual([expect.objectContaining({ objectId: coin!.id, balance: FAUCET_AMOUNT_MIST.toString() })]);
  });

  it('POST /v2/usdc sends 1,000 USDC (to try on-chain billing in suigw dev)', async () => {
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    const response = await fetch(`${faucetHost}/v2/usdc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient } }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'Success', coins_sent: [{ amount: Number(FAUCET_AMOUNT_USDC) }] });
    expect(ledger.getBalance(recipient, COIN_TYPES.USDC).balance).toBe(FAUCET_AMOUNT_USDC);
  });

  it('serves consecutive requests from the same gas coin without conflicts', async () => {
    const recipient = Ed25519Keypair.generate().toSuiAddress();
    await Promise.all([requestSuiFromFaucetV2({ host: faucetHost, recipient }), requestSuiFromFaucetV2({ host: faucetHost, recipient })]);
    expect(ledger.getBalance(recipient, '0x2::sui::SUI').balance).toBe(2n * FAUCET_AMOUNT_MIST);
  });

  it('answers 400 with a clear error for a bad recipient or body', async () => {
    await expect(requestSuiFromFaucetV2({ host: faucetHost, recipient: 'not-an-address' })).rejects.toThrow(/invalid recipient address/);
    const res = await fetch(`${faucetHost}/v2/gas`, { method: 'POST', body: '{oops' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: { Failure: { internal: 'request body is not valid JSON' } }, coins_sent: null });
  });
});
