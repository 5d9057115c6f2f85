import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has defaults that work for suigw dev', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      networks: ['mainnet', 'testnet'],
      keyCacheTtlMs: 3000,
      walletMinPrepaidMicroUsd: 5_000_000n,
      bodyLimitBytes: 1024 * 1024,
      trustProxy: 0,
      databaseUrl: undefined,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('serves /metrics on its own port: 9464 on HOST by default, 0 picks one, off disables', () => {
    expect(loadConfig({}).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ HOST: '0.0.0.0', SUIGW_METRICS_PORT: '0' }).metrics).toEqual({ port: 0, host: '0.0.0.0' });
    expect(loadConfig({ SUIGW_METRICS_PORT: '9100', SUIGW_METRICS_HOST: '10.0.0.5' }).metrics).toEqual({ port: 9100, host: '10.0.0.5' });
    expect(loadConfig({ SUIGW_METRICS_PORT: 'off' }).metrics).toBeUndefined();
    expect(() => loadConfig({ SUIGW_METRICS_PORT: 'public' })).toThrow(ConfigError);
  });

  it('reads each variable', () => {
    const config = loadConfig({
      PORT: '0',
      SUIGW_NETWORKS: ' testnet , mainnet,testnet ',
      SUIGW_MAINNET_HOST: 'Mainnet.Example.COM',
      SUIGW_PUBLIC_URL: 'https://gw.example.com/',
      SUIGW_WALLET_MIN_PREPAID_USD: '2.5',
      SUIGW_TRUST_PROXY: 'yes',
      DATABASE_URL: '  ',
    });
    expect(config.port).toBe(0);
    expect(config.networks).toEqual(['testnet', 'mainnet']);
    expect(config.endpoints.mainnet.host).toBe('mainnet.example.com');
    expect(config.publicUrl).toBe('https://gw.example.com');
    expect(config.walletMinPrepaidMicroUsd).toBe(2_500_000n);
    expect(config.trustProxy).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
  });

  it('SUIGW_TRUST_PROXY is a number of trusted proxy hops (0-17); false and no are 0, true and yes every hop (deprecated)', () => {
    const read = (value: string) => loadConfig({ SUIGW_TRUST_PROXY: value }).trustProxy;
    expect(['0', '1', '2', ' 17 ', 'false', 'no', 'true', 'yes'].map(read)).toEqual([0, 1, 2, 17, 0, 0, true, true]);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['LOG_LEVEL', 'loud'],
    ['SUIGW_NETWORKS', 'mainnet,moonnet'],
    ['SUIGW_NETWORKS', ' , '],
    ['SUIGW_PUBLIC_URL', 'not a url'],
    ['SUIGW_SECRET', 'too-short'],
    ['SUIGW_KEY_CACHE_TTL_MS', '60001'],
    ['SUIGW_KEY_CACHE_TTL_MS', '1.5'],
    ['SUIGW_TRUST_PROXY', 'maybe'],
    ['SUIGW_TRUST_PROXY', '18'],
    ['SUIGW_TRUST_PROXY', '-1'],
    ['SUIGW_TRUST_PROXY', '1.5'],
    ['SUIGW_BODY_LIMIT_BYTES', '10'],
    ['SUIGW_WALLET_MIN_PREPAID_USD', '-5'],
    ['SUI_MAINNET_GRPC_URL', 'nope'],
  ])('%s=%j is a ConfigError naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    // `NAME: …` or, for list items, `NAME.1: …`.
    expect((error as ConfigError).issues.some((issue) => issue.startsWith(`${name}:`) || issue.startsWith(`${name}.`))).toBe(true);
    expect((error as Error).message).toContain(name);
  });

  // Exact messages: a bad value must say what was expected, not zod's bare 'Invalid input', and a
  // malformed URL must stop start-up here (DATABASE_URL=notaurl was a getaddrinfo stack trace;
  // REDIS_URL=nope started a gateway whose limiter failed open on every request).
  it.each([
    [{ SUIGW_METRICS_PORT: 'public' }, 'SUIGW_METRICS_PORT: expected a port number (0-65535) or off'],
    [{ SUIGW_WORKERS: 'lots' }, 'SUIGW_WORKERS: expected auto or a number of processes (1-64)'],
    [{ SUIGW_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.0/8,localhost' }, 'SUIGW_WEBHOOK_ALLOWED_ADDRESSES.1: expected an IP address or a CIDR block (e.g. 10.0.0.0/8)'],
    [{ DATABASE_URL: 'notaurl' }, 'DATABASE_URL: expected a postgres:// or postgresql:// URL'],
    [{ DATABASE_URL: 'mysql://db/suigw' }, 'DATABASE_URL: expected a postgres:// or postgresql:// URL'],
    [{ REDIS_URL: 'nope' }, 'REDIS_URL: expected a redis:// or rediss:// URL'],
    [
      { SUI_MAINNET_GRPC_URL: 'https://fullnode.example:443', SUI_MAINNET_GRAPHQL_URL: 'https://operator:s3cret@graphql.example/graphql' },
      'SUI_MAINNET_GRAPHQL_URL: must not carry a user name or password (scheme://user:password@host): the gateway does not send URL credentials upstream',
    ],
    [
      { SUI_TESTNET_GRPC_URL: 'https://token@fullnode.example:443', SUI_TESTNET_GRAPHQL_URL: 'https://graphql.example/graphql' },
      'SUI_TESTNET_GRPC_URL: must not carry a user name or password (scheme://user:password@host): the gateway does not send URL credentials upstream',
    ],
  ])('%j says what it expected', (env, message) => {
    expect(() => loadConfig(env)).toThrow(`invalid configuration:\n  ${message}`);
  });

  it('never quotes an upstream URL\'s credentials in the refusal', () => {
    expect(() => loadConfig({ SUI_MAINNET_GRPC_URL: 'https://fullnode.example:443', SUI_MAINNET_GRAPHQL_URL: 'https://operator:s3cret@graphql.example/graphql' }))
      .toThrow(expect.objectContaining({ message: expect.not.stringContaining('s3cret') }));
  });

  it('accepts the usual PostgreSQL and Redis URLs', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://suigw:p%40ss@db:5432/suigw?sslmode=require', REDIS_URL: 'rediss://:pw@cache:6380/2' });
    expect(config.databaseUrl).toBe('postgresql://suigw:p%40ss@db:5432/suigw?sslmode=require');
    expect(config.redisUrl).toBe('rediss://:pw@cache:6380/2');
    expect(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', REDIS_URL: '' }).redisUrl).toBeUndefined();
  });

  it('reads a setting set to nothing as unset, numbers too: their defaults, not 0', () => {
    const empty = loadConfig({ PORT: '', SUIGW_METRICS_PORT: ' ', SUIGW_KEY_CACHE_TTL_MS: '', SUIGW_SHED_MAX_HEAP_PERCENT: '', SUIGW_UPSTREAM_RETRIES: '', SUIGW_NETWORKS: '' });
    const unset = loadConfig({});
    expect(empty.port).toBe(8080);
    expect(empty.metrics).toEqual(unset.metrics);
    expect(empty).toEqual(unset);
  });

  it('refuses a network with one upstream endpoint of the two, naming the missing one', () => {
    expect(() => loadConfig({ SUI_MAINNET_GRPC_URL: 'https://fullnode.mainnet.sui.io:443' })).toThrow(
      "invalid configuration:\n  SUI_MAINNET_GRAPHQL_URL: required with SUI_MAINNET_GRPC_URL (a network's upstream is its gRPC and its GraphQL endpoint; with one alone it has none)",
    );
    try {
      loadConfig({ SUI_TESTNET_GRAPHQL_URL: 'https://graphql.testnet.sui.io/graphql', SUI_DEVNET_GRPC_URL: 'https://fullnode.devnet.sui.io:443' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).issues).toEqual([
        "SUI_TESTNET_GRPC_URL: required with SUI_TESTNET_GRAPHQL_URL (a network's upstream is its gRPC and its GraphQL endpoint; with one alone it has none)",
        "SUI_DEVNET_GRAPHQL_URL: required with SUI_DEVNET_GRPC_URL (a network's upstream is its gRPC and its GraphQL endpoint; with one alone it has none)",
      ]);
    }
    const both = loadConfig({ SUI_MAINNET_GRPC_URL: 'https://fullnode.mainnet.sui.io:443', SUI_MAINNET_GRAPHQL_URL: 'https://graphql.mainnet.sui.io/graphql' });
    expect(both.endpoints.mainnet).toMatchObject({ grpcUrl: 'https://fullnode.mainnet.sui.io:443', graphqlUrl: 'https://graphql.mainnet.sui.io/graphql' });
  });

  it('refuses a SUIGW_DEV_ADMIN_KEY that is not a key value at start-up, as every other setting', () => {
    expect(() => loadConfig({ SUIGW_DEV_ADMIN_KEY: 'abc' })).toThrow(
      'invalid configuration:\n  SUIGW_DEV_ADMIN_KEY: expected svc_pat_ followed by 32 to 120 base58 characters',
    );
    expect(() => loadConfig({ SUIGW_DEV_ADMIN_KEY: `svc_pat_${'0'.repeat(32)}` })).toThrow(ConfigError);
    const value = `svc_pat_${'A'.repeat(32)}`;
    expect(loadConfig({ SUIGW_DEV_ADMIN_KEY: value }).devAdminKey).toBe(value);
    expect(loadConfig({ SUIGW_DEV_ADMIN_KEY: '' }).devAdminKey).toBeUndefined();
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'y' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).issues).toHaveLength(2);
    }
  });
});
