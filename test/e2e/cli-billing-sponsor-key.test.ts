import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_TIMEOUT_MS, runCli, STACK_FRAME } from '../support/cli.js';
import { ConfigError, loadConfig } from '../../services/core/index.js';

/**
 * docs/billing.md: `suigw billing` exits 2 on bad configuration. A sponsor key that starts with
 * `suiprivkey1` but is no ED25519 key in Sui's bech32 form passed the config schema, and
 * decoding it threw out of the role: exit 1 with a stack trace (the gateway and `suigw dev`
 * died the same way at start-up).
 */
describe('SUIGW_BILLING_SPONSOR_KEY that is not an ED25519 key', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'suigw-sponsor-key-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  const malformed = 'suiprivkey1notbech32atall';
  const secp256k1 = Secp256k1Keypair.generate().getSecretKey();

  it.each([['not bech32', malformed], ['a secp256k1 key', secp256k1]])('%s: refused by the config schema, naming the variable and not the value', (_, key) => {
    try {
      loadConfig({ SUIGW_BILLING_SPONSOR_KEY: key });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([expect.stringMatching(/^SUIGW_BILLING_SPONSOR_KEY: /)]);
      expect((error as ConfigError).message).not.toContain(key);
    }
  });

  it('an ED25519 key is accepted', () => {
    const key = Ed25519Keypair.generate().getSecretKey();
    expect(loadConfig({ SUIGW_BILLING_SPONSOR_KEY: key }).billing.sponsorKey).toBe(key);
  });

  it('suigw billing: exit 2, the variable named, no stack trace, the key not echoed', async () => {
    const result = await runCli(['billing'], { SUIGW_DATA_DIR: join(dir, 'data'), SUIGW_BILLING_SPONSOR_KEY: secp256k1 });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^invalid configuration:\n {2}SUIGW_BILLING_SPONSOR_KEY: /);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stdout + result.stderr).not.toContain(secp256k1);
  }, CLI_TIMEOUT_MS);
});
