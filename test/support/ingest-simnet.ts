import { afterAll, beforeAll } from 'vitest';
import { startSimnet, type RunningSimnet } from '../../services/simnet/index.js';
import { SuiUpstream, defaultUpstreamPolicy } from '../../services/upstream/index.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** What an ingest test runs against: simnet serving as mainnet, a test database, the upstream handle to simnet. */
export interface IngestSimnet {
  readonly simnet: RunningSimnet;
  readonly db: TestDatabase;
  readonly upstream: SuiUpstream;
}

/**
 * simnet that seals only when told (`produceCheckpoint`), with `transactionsPerCheckpoint` of
 * generated traffic each, a test database and an upstream handle to it as mainnet: started before
 * the describe's tests, stopped after them. Read its members inside hooks and tests.
 */
export function useIngestSimnet(options: { seed: string; transactionsPerCheckpoint: number }): IngestSimnet {
  let started: IngestSimnet | undefined;
  beforeAll(async () => {
    const simnet = await startSimnet({ seed: options.seed, autoStart: false, transactionsPerCheckpoint: options.transactionsPerCheckpoint });
    const db = await createTestDatabase();
    const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl }, policy: defaultUpstreamPolicy });
    started = { simnet, db, upstream };
  });
  afterAll(async () => {
    await started?.upstream.close();
    await started?.simnet.stop();
    await started?.db.drop();
  });
  const get = (): IngestSimnet => {
    if (!started) throw new Error('useIngestSimnet: read inside a hook or a test');
    return started;
  };
  return {
    get simnet() { return get().simnet; },
    get db() { return get().db; },
    get upstream() { return get().upstream; },
  };
}
