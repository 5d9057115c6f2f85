import { describe, expect, it } from 'vitest';
import { loadConfig } from '../core/index.js';
import { servingWarnings } from './runtime.js';

describe('servingWarnings: what gateway, grpc and streams warn about at start-up', () => {
  it('a served network without an upstream, and no DATABASE_URL', () => {
    expect(servingWarnings(loadConfig({ SUIGW_NETWORKS: 'mainnet,testnet', SUIGW_DATA_DIR: '/var/lib/suigw' }))).toEqual([
      'mainnet has no upstream (SUI_MAINNET_GRPC_URL and SUI_MAINNET_GRAPHQL_URL are unset): its data calls answer 404 NETWORK_NOT_CONFIGURED',
      'testnet has no upstream (SUI_TESTNET_GRPC_URL and SUI_TESTNET_GRAPHQL_URL are unset): its data calls answer 404 NETWORK_NOT_CONFIGURED',
      'DATABASE_URL is unset: the data is kept in an embedded database under /var/lib/suigw, which no other process or replica shares',
    ]);
  });

  it('nothing for a deployment with its upstreams and PostgreSQL (a network it does not serve needs none)', () => {
    expect(servingWarnings(loadConfig({
      SUIGW_NETWORKS: 'mainnet',
      SUI_MAINNET_GRPC_URL: 'https://fullnode.mainnet.sui.io:443',
      SUI_MAINNET_GRAPHQL_URL: 'https://graphql.mainnet.sui.io/graphql',
      DATABASE_URL: 'postgres://suigw@db:5432/suigw',
    }))).toEqual([]);
  });
});
