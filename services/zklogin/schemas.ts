import { z } from 'zod';

/**
 * Example values shown in the OpenAPI document (checked against their schemas in a test). They
 * fit together: the address and seed are the SDK's for the salt and the token's sub/aud, the nonce
 * is `generateNonce` of the key, maxEpoch and randomness; the signatures are placeholders.
 */
export const examples = {
  AddressRequest: { jwt: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20iLCJhdWQiOiJteS1jbGllbnQtaWQiLCJzdWIiOiIxMTA0NjM0NTIxNjczMDM1MTI3NzkifQ.c2lnbmF0dXJl' },
  ZkLoginAddress: {
    salt: '129390038577185583942388216820280642146',
    addressSeed: '6340541077366010313444433726759683852353101639157296354595061981954903195661',
    address: '0x746b2441c9751cb798b2b7f4834d79986fc296f81417c9e23fb6d1791373e459',
    seedVersion: 1,
  },
  NonceRequest: { extendedEphemeralPublicKey: 'ALj+E1ZGNNR8uUXsrZi0Gd6hUmX7WmB7nE1+YjYkK2G0', epochs: 2 },
  ZkLoginNonce: { nonce: 'Gbux-xP3bOI3aeNnrcf5An2zF9c', jwtRandomness: '100681567828351849884072155819400689117', maxEpoch: 914, expiresAt: 1764028800000 },
  ProveRequest: {
    jwt: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20iLCJhdWQiOiJteS1jbGllbnQtaWQiLCJzdWIiOiIxMTA0NjM0NTIxNjczMDM1MTI3NzkiLCJub25jZSI6IkdidXgteFAzYk9JM2FlTm5yY2Y1QW4yekY5YyJ9.c2lnbmF0dXJl',
    extendedEphemeralPublicKey: 'ALj+E1ZGNNR8uUXsrZi0Gd6hUmX7WmB7nE1+YjYkK2G0',
    maxEpoch: 914,
    jwtRandomness: '100681567828351849884072155819400689117',
  },
  ZkLoginProof: {
    proofPoints: {
      a: ['17318089125952421736342263717932719437717844282410187957984751939942898251250', '11373966645469122582074082295985388258840681618268593976697325892280915681207', '1'],
      b: [
        ['5939871147348834997361720122238980177152303274311047249905942384915768690895', '4533568271134785278731234570361482651996740791888285864966884032717049811708'],
        ['10564387285071555469753990661410840118635925466597037018058770041347518461368', '12597323547277579144698496372242615368085801313343155735511330003884767957854'],
        ['1', '0'],
      ],
      c: ['15791589472556826263231644728873337629015269984699894047159826229716498779180', '4055398632958734017223006713563004211349025734458412736478124470394449489935', '1'],
    },
    issBase64Details: { value: 'yJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20iLC', indexMod4: 1 },
    headerBase64: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0',
    addressSeed: '6340541077366010313444433726759683852353101639157296354595061981954903195661',
    maxEpoch: 914,
  },
  ZkLoginAudience: { id: 'aud_3Gx7fQhRc8kVn2Lp9TbWs', audience: 'my-client-id.apps.googleusercontent.com', createdAt: '2026-11-22T12:00:00.000Z' },
} as const;

const decimal = z.string().regex(/^\d+$/);
const jwt = z.string().min(1).max(8_192).meta({ description: 'The OAuth id_token (compact JWS).' });
const extendedEphemeralPublicKey = z.string().min(1).max(200).meta({ description: 'base64 of the scheme flag ‖ ephemeral public key (`getExtendedEphemeralPublicKey`).' });
/** The circuit takes jwtRandomness as a field element below 2^128 (`generateRandomness` makes 16 bytes). */
const jwtRandomness = z.string().refine((value) => /^\d{1,39}$/.test(value) && BigInt(value) < 2n ** 128n, 'must be a decimal string below 2^128')
  .meta({ description: 'Decimal string below 2^128, from /v1/zklogin/nonce.' });

// Strict: a misspelt or unknown field is a 400 VALIDATION_FAILED (a salt, say, is never accepted from the caller).
export const addressBody = z.strictObject({ jwt }).meta({ id: 'ZkLoginAddressRequest', examples: [examples.AddressRequest] });
export const nonceBody = z.strictObject({
  extendedEphemeralPublicKey,
  epochs: z.number().int().min(0).max(30).optional().meta({ description: 'Epochs the session lasts past the current one, 0 to 30 (default 2).' }),
}).meta({ id: 'ZkLoginNonceRequest', examples: [examples.NonceRequest] });
export const proveBody = z.strictObject({
  jwt,
  extendedEphemeralPublicKey,
  maxEpoch: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ description: 'The maxEpoch the nonce was made for.' }),
  jwtRandomness,
}).meta({ id: 'ZkLoginProveRequest', examples: [examples.ProveRequest] });
export const audienceBody = z.strictObject({
  audience: z.string().trim().min(1).max(255).meta({ description: 'An OAuth client ID (the JWT `aud`).' }),
}).meta({ id: 'ZkLoginAudienceRequest', examples: [{ audience: examples.ZkLoginAudience.audience }] });

export const ZkLoginAddress = z.object({
  salt: decimal.meta({ description: 'Decimal, below 2^128.' }),
  addressSeed: decimal,
  address: z.string(),
  seedVersion: z.number().int().meta({ description: 'Salt-derivation version, currently 1.' }),
}).meta({ id: 'ZkLoginAddress', examples: [examples.ZkLoginAddress] });

export const ZkLoginNonce = z.object({
  nonce: z.string(),
  jwtRandomness: decimal,
  maxEpoch: z.number().int(),
  expiresAt: z.number().int().meta({ description: 'Unix ms, an estimate of the end of maxEpoch.' }),
}).meta({ id: 'ZkLoginNonce', examples: [examples.ZkLoginNonce] });

export const ZkLoginProof = z.object({
  proofPoints: z.object({ a: z.array(decimal), b: z.array(z.array(decimal)), c: z.array(decimal) }),
  issBase64Details: z.object({ value: z.string(), indexMod4: z.number().int() }),
  headerBase64: z.string(),
  addressSeed: decimal,
  maxEpoch: z.number().int(),
}).meta({ id: 'ZkLoginProof', examples: [examples.ZkLoginProof] });

export const ZkLoginAudience = z.object({
  id: z.string(),
  audience: z.string(),
  createdAt: z.string(),
}).meta({ id: 'ZkLoginAudience', examples: [examples.ZkLoginAudience] });

export const audienceIdParams = z.object({ id: z.string().min(1).max(64) });
