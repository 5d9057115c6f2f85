import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { SuiUpstream } from './sui-upstream.js';
import { defaultUpstreamPolicy, type UpstreamPolicy } from './types.js';
import { UpstreamError } from './errors.js';

const policy: UpstreamPolicy = {
  ...defaultUpstreamPolicy, deadlineMs: 600, attemptTimeoutMs: 250, retries: 2, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 3, breakerCooldownMs: 60_000, healthTimeoutMs: 200,
};

describe('SuiUpstream against a misbehaving upstream', () => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  beforeAll(async () => { fake = await startFakeUpstream(); });
  afterAll(async () => { await fake.stop(); });
  beforeEach(async () => {
    await upstream?.close();
    fake.state.behaviour = 'ok'; fake.state.calls = 0;
    upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
  });
  afterAll(async () => { await upstream.close(); });

  const getInfo = () => upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response);

  it('reads through native gRPC and GraphQL', async () => {
    expect((await getInfo()).checkpointHeight).toBe(42n);
    await expect(upstream.graphql('{ chainIdentifier }')).resolves.toEqual({ chainIdentifier: 'abc' });
  });

  it('a slow gRPC upstream fails with timeout within the deadline', async () => {
    fake.state.behaviour = 'slow';
    const started = Date.now();
    const error = await getInfo().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(policy.deadlineMs + 1_000);
  });

  it('a slow GraphQL upstream fails with timeout within the deadline', async () => {
    fake.state.behaviour = 'slow';
    const started = Date.now();
    const error = await upstream.graphql('{ chainIdentifier }').catch((e: unknown) => e);
    expect((error as UpstreamError).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(policy.deadlineMs + 1_000);
  });

  it('an erroring upstream is a bad response, not retried', async () => {
    fake.state.behaviour = 'error';
    expect(((await getInfo().catch((e: unknown) => e)) as UpstreamError).kind).toBe('bad_response');
    expect(fake.state.calls).toBe(1);
    expect(((await upstream.graphql('{ x }').catch((e: unknown) => e)) as UpstreamError).kind).toBe('bad_response');
  });

  it('NOT_FOUND is an answer: no retry, breaker stays closed', async () => {
    fake.state.behaviour = 'not_found';
    for (let i = 0; i < 5; i += 1) {
      expect(((await getInfo().catch((e: unknown) => e)) as UpstreamError).kind).toBe('not_found');
    }
    expect(fake.state.calls).toBe(5);
    expect((await upstream.health()).grpc.breaker).toBe('closed');
  });

  it('repeated failures open the breaker, which then fails fast without calling', async () => {
    fake.state.behaviour = 'error';
    for (let i = 0; i < 3; i += 1) await getInfo().catch(() => undefined);
    const calls = fake.state.calls;
    const started = Date.now();
    const error = (await getInfo().catch((e: unknown) => e)) as UpstreamError;
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/circuit open/);
    expect(fake.state.calls).toBe(calls);
    expect(Date.now() - started).toBeLessThan(250);
  });

  it('health reports each upstream', async () => {
    const up = await upstream.health();
    expect(up).toMatchObject({ network: 'testnet', status: 'up', grpc: { status: 'up', chainId: expect.any(String), checkpointHeight: '42' }, graphql: { status: 'up' } });
    fake.state.behaviour = 'error';
    const down = await upstream.health();
    expect(down.status).toBe('down');
  });
});

describe('SuiUpstream against a stopped upstream', () => {
  it('fails with unavailable within the deadline and leaves no sockets behind', async () => {
    const fake = await startFakeUpstream();
    await fake.stop();
    const upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
    const started = Date.now();
    const grpcError = (await upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response).catch((e: unknown) => e)) as UpstreamError;
    expect(['unavailable', 'timeout']).toContain(grpcError.kind);
    const gqlError = (await upstream.graphql('{ chainIdentifier }').catch((e: unknown) => e)) as UpstreamError;
    expect(gqlError.kind).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(2 * policy.deadlineMs + 1_000);
    await upstream.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sockets = process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPWRAP');
    expect(sockets).toEqual([]);
  });
});
