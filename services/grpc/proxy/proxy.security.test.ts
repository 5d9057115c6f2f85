import { credentials } from '@grpc/grpc-js';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyValue } from '../../identity/index.js';
import { startGrpcProxyE2E, type GrpcProxyE2E } from '../../../test/support/grpc-proxy-e2e.js';

/** The status a call ends with: `OK` or the error's code and message, as the client reads them. */
async function outcome(client: SuiGrpcClient): Promise<{ code: string; message: string }> {
  try {
    await client.ledgerService.getServiceInfo({});
    return { code: 'OK', message: '' };
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
}

describe('gRPC proxy: every authentication outcome', () => {
  let e2e: GrpcProxyE2E;
  beforeAll(async () => { e2e = await startGrpcProxyE2E(); });
  afterAll(async () => { await e2e.stop(); });

  const nativeWith = (meta: Record<string, string>) => new SuiGrpcClient({
    network: 'mainnet', transport: new GrpcTransport({ host: e2e.host, channelCredentials: credentials.createInsecure(), meta }),
  });
  const webWith = (meta: Record<string, string>) => new SuiGrpcClient({ network: 'mainnet', baseUrl: `http://${e2e.host}`, meta });

  it('a key in x-api-key or in authorization: Bearer is accepted, natively and over gRPC-Web', async () => {
    expect(await outcome(e2e.native(e2e.gateway.adminKey))).toEqual({ code: 'OK', message: '' });
    expect(await outcome(nativeWith({ authorization: `Bearer ${e2e.gateway.adminKey}` }))).toEqual({ code: 'OK', message: '' });
    expect(await outcome(webWith({ authorization: `Bearer ${e2e.gateway.adminKey}` }))).toEqual({ code: 'OK', message: '' });
  });

  it('no key, a malformed key, an unknown key: UNAUTHENTICATED', async () => {
    expect(await outcome(e2e.native(undefined))).toEqual({ code: 'UNAUTHENTICATED', message: 'Missing API key' });
    expect(await outcome(e2e.web(undefined))).toEqual({ code: 'UNAUTHENTICATED', message: 'Missing API key' });
    expect(await outcome(e2e.native('not-a-key'))).toEqual({ code: 'UNAUTHENTICATED', message: 'Invalid API key' });
    expect(await outcome(e2e.native(`svc_pat_${'1'.repeat(44)}`))).toEqual({ code: 'UNAUTHENTICATED', message: 'Invalid API key' });
  });

  it('a key without the data scope: PERMISSION_DENIED with INSUFFICIENT_SCOPE', async () => {
    const key = await e2e.key({ scopes: ['manage'] });
    expect(await outcome(e2e.native(key))).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/^INSUFFICIENT_SCOPE: /) });
  });

  it("a key of the other network: PERMISSION_DENIED with NETWORK_MISMATCH", async () => {
    const key = await e2e.key({ network: 'testnet' });
    expect(await outcome(e2e.native(key))).toEqual({ code: 'PERMISSION_DENIED', message: 'NETWORK_MISMATCH: This key is bound to testnet; use the testnet endpoint instead of mainnet.' });
  });

  it('an origin-restricted key: refused for native clients (even ones that send an Origin or the web mark), accepted over gRPC-Web from its origin only', async () => {
    const key = await e2e.key({ allowedOrigins: ['https://app.example.com'] });
    const refused = { code: 'PERMISSION_DENIED', message: expect.stringMatching(/^ORIGIN_NOT_ALLOWED: /) };
    expect(await outcome(e2e.native(key))).toMatchObject(refused);
    expect(await outcome(nativeWith({ 'x-api-key': key, origin: 'https://app.example.com' }))).toMatchObject(refused);
    expect(await outcome(nativeWith({ 'x-api-key': key, 'x-suigw-grpc-web': 'guess', 'x-suigw-web-origin': 'https://app.example.com' }))).toMatchObject(refused);
    // Over gRPC-Web metadata are HTTP headers: this sends `Origin` as a browser would.
    const fromOrigin = (origin: string) => webWith({ 'x-api-key': key, origin });
    expect(await outcome(fromOrigin('https://app.example.com'))).toEqual({ code: 'OK', message: '' });
    expect(await outcome(fromOrigin('https://evil.example.com'))).toMatchObject(refused);
    expect(await outcome(e2e.web(key))).toMatchObject(refused);
  });

  it('refusals are not charged and reach no upstream', async () => {
    const { ledger } = e2e.metering;
    await outcome(e2e.native(e2e.gateway.adminKey));
    const before = (await ledger.balance(e2e.gateway.organizationId)).remaining;
    await outcome(e2e.native(await e2e.key({ network: 'testnet' })));
    await outcome(e2e.native(undefined));
    expect((await ledger.balance(e2e.gateway.organizationId)).remaining).toBe(before);
  });

  // Last: it spends this client's budget of lookups that find no key (60 a minute; the file spent one before).
  it('random unknown keys from one client: RESOURCE_EXHAUSTED RATE_LIMIT_EXCEEDED once its lookups found no key 60 times', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 60; i++) {
      const { code, message } = await outcome(e2e.native(generateKeyValue()));
      outcomes.push(`${code} ${message.split(':')[0]}`);
    }
    expect(outcomes.slice(0, 59)).toEqual(Array(59).fill('UNAUTHENTICATED Invalid API key'));
    expect(outcomes[59]).toBe('RESOURCE_EXHAUSTED RATE_LIMIT_EXCEEDED');
  });
});
