import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { toBase64 } from '@mysten/sui/utils';
import { verifyTransactionSignature } from '@mysten/sui/verify';
import { describe, expect, it } from 'vitest';
import { FastEd25519Signer } from './signing.js';

describe('FastEd25519Signer', () => {
  it('produces exactly the SDK keypair\'s transaction signatures', async () => {
    const keypair = Ed25519Keypair.fromSecretKey(new Uint8Array(32).fill(7));
    const fast = new FastEd25519Signer({ keypair, address: keypair.toSuiAddress(), label: 'test' });
    for (const bytes of [new Uint8Array([1, 2, 3]), new Uint8Array(500).fill(9)]) {
      const signature = toBase64(fast.signTransaction(bytes));
      expect(signature).toBe((await keypair.signTransaction(bytes)).signature);
      expect((await verifyTransactionSignature(bytes, signature)).toSuiAddress()).toBe(keypair.toSuiAddress());
    }
  });
});
