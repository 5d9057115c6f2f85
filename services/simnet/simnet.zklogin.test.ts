import { SuiGrpcClient } from '@mysten/sui/grpc';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { computeZkLoginAddressFromSeed, getZkLoginSignature } from '@mysten/sui/zklogin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimnet } from './index.js';
import type { RunningSimnet } from './index.js';

let simnet: RunningSimnet;
let client: SuiGrpcClient;

beforeAll(async () => {
  simnet = await startSimnet({ seed: 'zklogin', autoStart: false });
  client = new SuiGrpcClient({ network: 'localnet', baseUrl: simnet.grpcUrl });
});

afterAll(async () => {
  await simnet.stop();
});

/** An `iss` claim as the circuit sees it: base64url of `"iss":"…",`, tightly packed. */
function issClaim(): { iss: string; value: string } {
  let iss = 'https://issuer.simnet.invalid/';
  while (`"iss":"${iss}",`.length % 3 !== 0) iss += 'x';
  return { iss, value: Buffer.from(`"iss":"${iss}",`).toString('base64url') };
}

/** A zkLogin signature with a well-formed but unchecked proof (simnet does not verify Groth16). */
async function signWithZkLogin(bytes: Uint8Array, ephemeral: Ed25519Keypair, addressSeed: string, maxEpoch: bigint): Promise<string> {
  const { value } = issClaim();
  const { signature: userSignature } = await ephemeral.signTransaction(bytes);
  return getZkLoginSignature({
    inputs: {
      proofPoints: { a: ['1', '2', '1'], b: [['1', '2'], ['3', '4'], ['1', '0']], c: ['1', '2', '1'] },
      issBase64Details: { value, indexMod4: 0 },
      headerBase64: 'eyJhbGciOiJSUzI1NiJ9',
      addressSeed,
    },
    maxEpoch: maxEpoch.toString(),
    userSignature,
  });
}

describe('zkLogin (structural checks only)', () => {
  const addressSeed = '424242424242424242424242';

  it('executes a transaction from a zkLogin address whose ephemeral signature is valid', async () => {
    const { iss } = issClaim();
    const address = computeZkLoginAddressFromSeed(BigInt(addressSeed), iss, false);
    const alice = simnet.accounts[0]!;
    const fund = new Transaction();
    fund.setSender(alice.address);
    fund.transferObjects([fund.splitCoins(fund.gas, [2_000_000_000])[0]!], address);
    await client.signAndExecuteTransaction({ transaction: fund, signer: alice.keypair });

    const ephemeral = new Ed25519Keypair();
    const tx = new Transaction();
    tx.setSender(address);
    tx.transferObjects([tx.splitCoins(tx.gas, [1_000])[0]!], alice.address);
    const bytes = await tx.build({ client });
    const epoch = simnet.ledger.currentEpoch().epoch;
    const result = await client.core.executeTransaction({ transaction: bytes, signatures: [await signWithZkLogin(bytes, ephemeral, addressSeed, epoch + 5n)] });
    expect(result.$kind).toBe('Transaction');

    const stale = new Transaction();
    stale.setSender(address);
    stale.transferObjects([stale.splitCoins(stale.gas, [1_000])[0]!], alice.address);
    const staleBytes = await stale.build({ client });
    await expect(client.core.executeTransaction({ transaction: staleBytes, signatures: [await signWithZkLogin(staleBytes, ephemeral, addressSeed, epoch - 1n)] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
