import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/index.js';
import { capturedLogger, loggedFields } from '../../test/support/captured-log.js';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { SuiUpstream } from './sui-upstream.js';
import { defaultUpstreamPolicy, type UpstreamPolicy } from './types.js';
import type { UpstreamError } from './errors.js';

const policy: UpstreamPolicy = { ...defaultUpstreamPolicy, retries: 0, breakerFailureThreshold: 3, breakerCooldownMs: 10_000 };

/** Operators learn from the log why callers get 503s: one line per breaker transition, never per refused call. */
describe('SuiUpstream breaker transitions in the log', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  beforeAll(async () => { fake = await startFakeUpstream(); });
  afterAll(async () => { await fake.stop(); });

  it('logs the opening once (warn, with the last failure), a failed probe re-opening it, and the closing (info)', async () => {
    const clock = new ManualClock();
    const { lines, logger } = capturedLogger();
    const upstream = new SuiUpstream({
      network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy, logger,
      env: { now: () => clock.now(), random: () => 0, sleep: async () => undefined },
    });
    const getInfo = () => upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response)
      .then(() => 'ok', (error: UpstreamError) => error.kind);
    try {
      fake.state.behaviour = 'unavailable';
      const opened = {
        level: 40, msg: 'upstream circuit opened', network: 'testnet', api: 'grpc', group: 'grpc', failures: 3, cooldownMs: 10_000,
        lastFailure: { kind: 'unavailable', operation: 'GetServiceInfo', message: 'GetServiceInfo: UNAVAILABLE: fake UNAVAILABLE' },
      };
      expect([await getInfo(), await getInfo()]).toEqual(['unavailable', 'unavailable']);
      expect(lines).toEqual([]);
      expect(await getInfo()).toBe('unavailable');
      expect(lines.map(loggedFields)).toEqual([opened]);

      // Refused calls while open add nothing.
      for (let i = 0; i < 5; i += 1) expect(await getInfo()).toBe('circuit_open');
      expect(lines).toHaveLength(1);

      // The probe after the cooldown fails: opened again, once.
      clock.advance(10_000);
      expect(await getInfo()).toBe('unavailable');
      expect(await getInfo()).toBe('circuit_open');
      expect(lines.map(loggedFields)).toEqual([opened, { ...opened, failures: 4 }]);

      fake.state.behaviour = 'ok';
      clock.advance(10_000);
      expect([await getInfo(), await getInfo()]).toEqual(['ok', 'ok']);
      expect(lines.map(loggedFields).slice(2)).toEqual([{ level: 30, msg: 'upstream circuit closed', network: 'testnet', api: 'grpc', group: 'grpc' }]);
      expect(upstream.breakers()).toEqual({ grpc: 'closed' });
    } finally {
      fake.state.behaviour = 'ok';
      await upstream.close();
    }
  });

  it('never logs credentials an upstream URL carries (fetch quotes the URL in its error)', async () => {
    const { lines, logger } = capturedLogger();
    const graphqlUrl = fake.graphqlUrl.replace('http://', 'http://operator:s3cret@');
    const upstream = new SuiUpstream({ network: 'mainnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl }, policy, logger });
    try {
      for (let i = 0; i < 3; i += 1) {
        expect(((await upstream.graphql('{ chainIdentifier }').catch((e: unknown) => e)) as UpstreamError).kind).toBe('unavailable');
      }
      expect(lines.map(loggedFields)).toEqual([{
        level: 40, msg: 'upstream circuit opened', network: 'mainnet', api: 'graphql', group: 'graphql', failures: 3, cooldownMs: 10_000,
        lastFailure: {
          kind: 'unavailable', operation: 'graphql',
          message: `graphql: Request cannot be constructed from a URL that includes credentials: ${fake.graphqlUrl.replace('http://', 'http://[redacted]@')}`,
        },
      }]);
      expect(JSON.stringify(lines)).not.toContain('s3cret');
    } finally {
      await upstream.close();
    }
  });
});
