/**
 * The zkLogin circuit's bounds on a token (as the SDK's `jwtToAddress` checks them): the header
 * at most 279 base64 characters, the SHA-256-padded unsigned token (header.payload) at most 1,920
 * bytes. A longer token can never be proven, so it has no address either.
 */
const MAX_HEADER_LEN_B64 = 279;
const MAX_PADDED_UNSIGNED_JWT_LEN = 1920;

export function jwtTooLongForCircuit(jwt: string): string | undefined {
  const [header = '', payload = ''] = jwt.split('.');
  if (header.length > MAX_HEADER_LEN_B64) return 'The token header is too long for zkLogin.';
  const bits = (header.length + 1 + payload.length) * 8;
  const padding = (960 - ((bits % 512) + 1)) % 512;
  if ((bits + 1 + padding + 64) / 8 > MAX_PADDED_UNSIGNED_JWT_LEN) return 'The token is too long for zkLogin.';
  return undefined;
}
