import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.js';
import { createKeyVia } from '../../test/support/management-calls.js';
import { prng } from '../../test/support/rest-fuzz.js';

/**
 * Hostile input never gives a 5xx (issue 2, "Done means"). A seeded generator builds JSON texts
 * for every management POST/PATCH (wrong types, nulls, arrays for objects, 1 MB strings,
 * RTL/emoji/NUL, deep nesting, 1e308/-0/1e309/"NaN", `__proto__`/`constructor` keys), hostile
 * path parameters, query strings and headers. Every answer must be JSON with `error` when it
 * is not a success, and a rejected request must leave no row behind.
 * Re-run a failure with FUZZ_SEED=<seed printed in the assertion message>.
 */

const SEED = Number(process.env['FUZZ_SEED'] ?? 0x5eed);
const ROUNDS = 150;


/** A JSON value as text pieces, so that `-0`, `1e309` and duplicate/`__proto__` keys survive. */
class Raw {
  constructor(readonly text: string) {}
}
class Obj {
  constructor(readonly entries: [string, Json][]) {}
}
type Json = null | boolean | number | string | Raw | Obj | Json[];

function serialize(value: Json): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Obj) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${serialize(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  return JSON.stringify(value);
}

const MB = 1_000_000;
const STRINGS = [
  '',
  ' ',
  '\t\n',
  'a',
  'data',
  'manage',
  'zkLogin',
  'mainnet',
  'testnet',
  'example.com',
  '*.example.com',
  'https://app.example.com:8443',
  '\u0000',
  'name\u0000with-nul',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  'שלום',
  '🚀👩‍👩‍👧‍👦🏳️‍🌈',
  '\ud800',
  '\udfff\ud800',
  'Ω≈ç√∫˜µ≤≥÷',
  '日本語のプロジェクト',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  "'; DROP TABLE api_keys; --",
  '${jndi:ldap://x}',
  '../../etc/passwd',
  '%00%ff',
  '<script>alert(1)</script>',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  'null',
  'true',
  '__proto__',
  'constructor',
  'svc_pat_' + '1'.repeat(44),
  '0x' + 'a'.repeat(64),
  'proj_' + 'x'.repeat(60),
];
const NUMBERS: Json[] = [
  0,
  1,
  -1,
  30,
  365,
  366,
  1.5,
  2 ** 53 + 1,
  -(2 ** 31),
  5e-324,
  new Raw('1e308'),
  new Raw('-1e308'),
  new Raw('1e309'),
  new Raw('-0'),
  new Raw('0.0000000000000000000001'),
  new Raw('123456789012345678901234567890'),
];
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', '\u0000', 'name', 'scopes', 'x'.repeat(1000)];

class Generator {
  readonly #random: () => number;
  constructor(seed: number) {
    this.#random = prng(seed);
  }

  int(n: number): number {
    return Math.floor(this.#random() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.#random() < p;
  }

  string(): string {
    switch (this.int(6)) {
      case 0:
        // Rarely a 1 MB string (the body limit is 1 MiB: ASCII passes the parser, the rest is 413).
        return this.chance(0.3) ? this.pick(['x', 'é', '🚀', '\u0000']).repeat(this.chance(0.5) ? MB : MB / 4) : 'y'.repeat(this.int(300));
      case 1:
        return this.pick(STRINGS) + this.pick(STRINGS);
      default:
        return this.pick(STRINGS);
    }
  }

  value(depth = 0): Json {
    const kind = this.int(depth > 3 ? 5 : 9);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick(NUMBERS);
      case 3:
      case 4:
        return this.string();
      case 5:
        return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
      case 6:
        return new Obj(Array.from({ length: this.int(4) }, () => [this.pick(KEYS), this.value(depth + 1)]));
      case 7:
        // Deep nesting, as text: arrays or objects a thousand levels down.
        return this.chance(0.5)
          ? new Raw('['.repeat(1000) + ']'.repeat(1000))
          : new Raw('{"a":'.repeat(1000) + '1' + '}'.repeat(1000));
      default:
        return new Obj([['__proto__', new Obj([['scopes', ['manage', 'zkLogin']], ['isAdmin', true]])]]);
    }
  }

  /** A body that is mostly valid with some fields made hostile, or hostile as a whole. */
  body(valid: Record<string, Json>): string {
    if (this.chance(0.15)) {
      return this.pick([
        serialize(this.value()),
        serialize([new Obj(Object.entries(valid))]),
        'null',
        '"just a string"',
        '[]',
        '{"a":1,"a":2}',
        '{"name":"x"}garbage',
        '\ufeff{"name":"bom"}',
        '{"name":"\\ud800"}',
      ]);
    }
    const entries: [string, Json][] = Object.entries(valid).map(([k, v]) => [k, this.chance(0.35) ? this.value() : v]);
    if (this.chance(0.2)) entries.splice(this.int(entries.length + 1), 0, [this.pick(KEYS), this.value()]);
    if (this.chance(0.1)) entries.splice(this.int(entries.length), 1);
    return serialize(new Obj(entries));
  }

  headerValue(): string {
    return this.pick([
      '',
      ' ',
      'x'.repeat(8000),
      'svc_pat_',
      'svc_pat_' + 'I'.repeat(44),
      'svc_pat_' + '1'.repeat(200),
      'Bearer',
      'Bearer  ',
      'null',
      'https://example.com',
      'http://[::1]:80',
      'http://xn--n3h.com',
      'javascript:alert(1)',
      'caf\u00e9',
      '\u00ff\u00fe',
    ]);
  }

  pathParam(): string {
    return this.pick([
      // Lone surrogates cannot be percent-encoded; a client could not send them either.
      encodeURIComponent(this.string().slice(0, 200).replace(/[\ud800-\udfff]/g, '\ufffd')),
      '%E0%A4%A',
      '%',
      '%00',
      '..%2F..%2Fetc',
      'key_' + 'x'.repeat(70),
      '%F0%9F%9A%80',
      'a%20b',
    ]);
  }

  contentType(): string | undefined {
    return this.chance(0.85)
      ? 'application/json'
      : this.pick([undefined, 'application/json; charset=latin1', 'APPLICATION/JSON', 'application/json;;', 'text/json', 'application/jsonx', '*/*']);
  }
}

describe('management fuzz: hostile input never gives a 5xx', () => {
  let t: TestApp;
  let targetKeyId: string;
  const generator = new Generator(SEED);

  beforeAll(async () => {
    t = await createTestApp();
    targetKeyId = (await createKeyVia(t, { name: 'fuzz target', scopes: ['data', 'manage'] })).id;
  });
  afterAll(async () => t.close());

  async function rowCounts(): Promise<{ api_keys: number; projects: number; organizations: number; prepaid_grants: number }> {
    const db = t.db.database.db;
    const count = async (table: 'api_keys' | 'projects' | 'organizations' | 'prepaid_grants') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    return {
      api_keys: await count('api_keys'),
      projects: await count('projects'),
      organizations: await count('organizations'),
      prepaid_grants: await count('prepaid_grants'),
    };
  }

  /** The `i`th anonymous caller's address (one per round: the wallet routes allow 10 calls a minute per address). */
  const visitor = (i: number) => `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}`;

  /** Sends one request and checks the contract; returns the status. */
  async function send(
    what: string,
    request: { method: string; url: string; payload?: string; headers?: Record<string, string | undefined>; remoteAddress?: string },
  ): Promise<number> {
    const headers = Object.fromEntries(Object.entries(request.headers ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string>;
    const before = await rowCounts();
    const response = await t.app.inject({
      method: request.method as 'POST', url: request.url, headers,
      ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
      ...(request.payload === undefined ? {} : { payload: request.payload }),
    });
    const context = `seed ${SEED}, ${what}: ${request.method} ${request.url.slice(0, 200)} body ${String(request.payload).slice(0, 300)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
    expect(response.statusCode, context).toBeLessThan(500);
    let body: Record<string, unknown>;
    try {
      body = response.json();
    } catch {
      throw new Error(`not JSON: ${context}`);
    }
    if (response.statusCode >= 400) {
      expect(typeof body['error'], context).toBe('string');
      expect((await rowCounts()), `a rejected request changed the database: ${context}`).toEqual(before);
    } else {
      expect(body, context).toHaveProperty('data');
    }
    return response.statusCode;
  }

  const auth = () => ({ 'x-api-key': t.adminKey, 'content-type': generator.contentType() });

  it(`POST /v1/keys (${ROUNDS} hostile bodies)`, async () => {
    let created = 0;
    const start = await rowCounts();
    for (let i = 0; i < ROUNDS; i++) {
      const payload = generator.body({ name: 'fuzz', projectId: t.projects.mainnet, scopes: ['data'], expiresInDays: 30, allowedOrigins: ['example.com'], rateLimit: new Obj([['perKeyRps', 5]]) });
      if ((await send('create key', { method: 'POST', url: '/mainnet/v1/keys', payload, headers: auth() })) === 201) created += 1;
    }
    expect((await rowCounts()).api_keys).toBe(start.api_keys + created);
  });

  it(`PATCH /v1/keys/{id} (${ROUNDS} hostile bodies and ids)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const payload = generator.body({ name: 'renamed', scopes: ['data'], allowedOrigins: ['*.example.com'], rateLimit: new Obj([['perIpRps', 2]]) });
      const id = generator.chance(0.8) ? targetKeyId : generator.pathParam();
      await send('update key', { method: 'PATCH', url: `/mainnet/v1/keys/${id}`, payload, headers: auth() });
    }
  });

  it(`POST /v1/projects (${ROUNDS} hostile bodies)`, async () => {
    let created = 0;
    const start = await rowCounts();
    for (let i = 0; i < ROUNDS; i++) {
      const payload = generator.body({ name: `Fuzz ${i}`, network: 'testnet' });
      if ((await send('create project', { method: 'POST', url: '/mainnet/v1/projects', payload, headers: auth() })) === 201) created += 1;
    }
    expect((await rowCounts()).projects).toBe(start.projects + created);
  });

  it(`POST /v1/wallet/register (${ROUNDS} hostile bodies): never a key, never an organization`, async () => {
    const address = '0x' + 'b'.repeat(64);
    const challenge = await t.app.inject({ method: 'GET', url: `/mainnet/v1/wallet/challenge?address=${address}` });
    const challengeId = (challenge.json() as { data: { challengeId: string } }).data.challengeId;
    for (let i = 0; i < ROUNDS; i++) {
      const payload = generator.body({ address, challengeId, signature: 'AAAA' });
      // Each from an address of its own: past the per-address allowance every body would be a 429, its handling untried.
      const status = await send('wallet register', {
        method: 'POST', url: '/mainnet/v1/wallet/register', payload, headers: { 'content-type': generator.contentType() }, remoteAddress: visitor(i),
      });
      expect(status).toBeGreaterThanOrEqual(400);
    }
  });

  it('hostile DELETE ids, challenge addresses, query strings and headers', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      await send('delete key', { method: 'DELETE', url: `/mainnet/v1/keys/${generator.pathParam()}`, headers: { 'x-api-key': t.adminKey } });
      await send('challenge', { method: 'GET', url: `/mainnet/v1/wallet/challenge?address=${generator.pathParam()}&address=${generator.pathParam()}`, remoteAddress: visitor(i) });
      await send('headers', {
        method: generator.pick(['GET', 'POST', 'PATCH', 'DELETE']),
        url: generator.pick(['/mainnet/v1/keys', '/mainnet/v1/account', '/mainnet/v1/auth/me', '/testnet/v1/projects', `/mainnet/v1/keys/${targetKeyId}`]) +
          generator.pick(['', `?api_key=${generator.pathParam()}`, '?api_key=a&api_key=b', '?a[b]=1', '?%', '?__proto__[x]=1']),
        headers: {
          'x-api-key': generator.chance(0.5) ? generator.headerValue() : undefined,
          authorization: generator.chance(0.3) ? `Bearer ${generator.headerValue()}` : undefined,
          origin: generator.chance(0.3) ? generator.headerValue() : undefined,
          'x-request-id': generator.chance(0.2) ? generator.headerValue() : undefined,
          'content-type': generator.contentType(),
        },
        payload: generator.chance(0.5) ? serialize(generator.value()) : undefined,
      });
    }
  });

  it('afterwards the admin key is intact and the database consistent', async () => {
    const admin = await t.db.database.db.selectFrom('api_keys').selectAll().where('id', '=', t.adminKeyId).executeTakeFirstOrThrow();
    expect(admin).toMatchObject({ enabled: true, scopes: ['data', 'streams', 'manage', 'zkLogin'], organization_id: t.organizationId });
    const me = await t.app.inject({ method: 'GET', url: '/mainnet/v1/auth/me', headers: { 'x-api-key': t.adminKey } });
    expect(me.statusCode).toBe(200);
    const orphans = await t.db.database.db
      .selectFrom('api_keys as k')
      .leftJoin('projects as p', 'p.id', 'k.project_id')
      .select('k.id')
      .where((eb) => eb.or([eb('p.id', 'is', null), eb('p.organization_id', '!=', eb.ref('k.organization_id'))]))
      .execute();
    expect(orphans).toEqual([]);
  });
});
