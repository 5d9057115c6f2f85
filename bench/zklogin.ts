/**
 * The CPU cost of zkLogin's domain work per request, in process (no HTTP, no database): JWT
 * verification against a cached JWKS, salt + address seed + address, a nonce, and the local
 * prover's checks. CPU time (utime + stime of this process), not wall time, so a busy machine
 * does not inflate it. Run: `npm run bench -- zklogin`.
 */
import { randomBytes } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { computeZkLoginAddressFromSeed, genAddressSeed, generateNonce, generateRandomness, getExtendedEphemeralPublicKey } from '@mysten/sui/zklogin';
import { ManualClock } from '../services/core/index.js';
import { issuerJwksUrls, JwtVerifier, localProof, SaltDeriver } from '../services/zklogin/index.js';
import { GOOGLE, startTestIssuers } from '../test/support/zklogin-issuers.js';

const ROUNDS = 300;

async function cpuMicrosPerOp(run: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < 20; i += 1) await run(i);
  const before = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i += 1) await run(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ROUNDS;
}

export default async function bench(): Promise<void> {
  const issuers = await startTestIssuers();
  try {
    const clock = new ManualClock(Date.now());
    const verifier = new JwtVerifier({ jwksUrls: issuerJwksUrls(JSON.parse(issuers.jwksEnv)), clock });
    const salts = new SaltDeriver(randomBytes(32));
    const keypair = new Ed25519Keypair();
    const randomness = generateRandomness();
    const nonce = generateNonce(keypair.getPublicKey(), 10, randomness);
    const exp = Math.floor(clock.now() / 1000) + 3600;
    const jwt = await issuers.sign({ aud: 'client', sub: 'user', exp, nonce });
    const jwts = await Promise.all(Array.from({ length: ROUNDS + 20 }, (_, i) => issuers.sign({ aud: 'client', sub: `user-${i}`, exp })));
    const results = {
      'JWT verification (RS256, cached JWKS)': await cpuMicrosPerOp((i) => verifier.verify(jwts[i]!)),
      'salt (HKDF) + address seed + address': await cpuMicrosPerOp((i) => {
        const salt = salts.saltOf({ organizationId: 'org_1', iss: GOOGLE, aud: 'client', sub: `user-${i}` });
        return computeZkLoginAddressFromSeed(genAddressSeed(salt, 'sub', `user-${i}`, 'client'), GOOGLE, false);
      }),
      'nonce (randomness + Poseidon)': await cpuMicrosPerOp(() => generateNonce(keypair.getPublicKey(), 10, generateRandomness())),
      'local prover checks + answer': await cpuMicrosPerOp(() => localProof({
        jwt, extendedEphemeralPublicKey: getExtendedEphemeralPublicKey(keypair.getPublicKey()), maxEpoch: '10', jwtRandomness: randomness, salt: '1', keyClaimName: 'sub',
      })),
    };
    for (const [name, micros] of Object.entries(results)) console.log(`${name.padEnd(40)} ${micros.toFixed(0).padStart(6)} µs CPU per operation`);
  } finally {
    await issuers.stop();
  }
}
