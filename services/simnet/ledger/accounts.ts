import { createHash } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { GenesisAccount } from './ledger.js';

const LABELS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'xavier', 'yvonne', 'zoe', 'faucet', 'deployer'];

/** Deterministic Ed25519 accounts: secret key = sha256(seed/account/label). */
export function deriveAccounts(seed: string): GenesisAccount[] {
  return LABELS.map((label) => {
    const secret = createHash('sha256').update(`${seed}/account/${label}`).digest();
    const keypair = Ed25519Keypair.fromSecretKey(new Uint8Array(secret));
    return { label, keypair, address: keypair.toSuiAddress() };
  });
}
