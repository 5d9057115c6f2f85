import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';

/**
 * The document's server is where `/docs` ("Try it out") and generated clients send requests.
 * Without SUIGW_PUBLIC_URL it was built from the bind address: `http://127.0.0.1:0/{network}` for
 * a gateway on a free port (`PORT=0`, as `suigw dev` beside others) and `http://0.0.0.0:8080/…`
 * for one bound to every interface (a container), neither of which a browser can call.
 */
describe('OpenAPI servers', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function servers(env: Record<string, string>): Promise<{ url: string; variables: unknown }[]> {
    t = await createTestApp({ env });
    return (await t.app.inject({ url: '/v1/openapi.json' })).json().servers;
  }

  it.each([
    { HOST: '127.0.0.1', PORT: '0' },
    { HOST: '0.0.0.0', PORT: '8080' },
  ])('without a public URL the server is relative to the document (%o)', async (env) => {
    expect(await servers(env)).toEqual([
      { url: '/{network}', variables: { network: { default: 'mainnet', enum: ['mainnet', 'testnet'] } } },
    ]);
  });

  it('with SUIGW_PUBLIC_URL the server is that URL', async () => {
    const [server] = await servers({ HOST: '0.0.0.0', PORT: '0', SUIGW_PUBLIC_URL: 'https://api.example.com/' });
    expect(server?.url).toBe('https://api.example.com/{network}');
  });
});
