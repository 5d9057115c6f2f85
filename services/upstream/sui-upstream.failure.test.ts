import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { SuiUpstream } from './sui-upstream.js';
import { defaultUpstreamPolicy, type UpstreamGrpcTransport, type UpstreamPolicy } from './types.js';
import { UpstreamError } from './errors.js';

const basePolicy: UpstreamPolicy = {
  ...defaultUpstreamPolicy, deadlineMs: 600, attemptTimeoutMs: 250, retries: 2, retryBaseDelayMs: 10, retryMaxDelayMs: 20,
  breakerFailureThreshold: 3, breakerCooldownMs: 60_000, healthTimeoutMs: 200,
};

/** Both gRPC transports must fail alike: the breaker and the API's errors depend on the kinds. */
const transports: UpstreamGrpcTransport[] = ['h2', 'grpc-js'];

describe.each(transports)('SuiUpstream (%s transport) against a misbehaving upstream', (grpcTransport) => {
  const policy: UpstreamPolicy = { ...basePolicy, grpcTransport };
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  beforeAll(async () => { fake = await startFakeUpstream(); });
  afterAll(async () => { await fake.stop(); });
  beforeEach(async () => {
    await upstream?.close();
    fake.state.behaviour = 'ok'; fake.state.calls = 0; fake.state.cancelled = 0; fake.state.maxInFlight = 0; fake.state.slowMethods.clear();
    upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
  });
  afterAll(async () => { await upstream.close(); });

  const getInfo = () => upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response);
  const readInfo = () => upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response, { idempotent: true });

  it('reads through native gRPC and GraphQL', async () => {
    expect((await readInfo()).checkpointHeight).toBe(42n);
    await expect(upstream.graphql('{ chainIdentifier }', undefined, { idempotent: true })).resolves.toEqual({ chainIdentifier: 'abc' });
  });

  it('a slow gRPC upstream fails with timeout (the deadline, not the node, ends it)', async () => {
    fake.state.behaviour = 'slow';
    const error = await getInfo().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe('timeout');
  });

  it('a slow GraphQL upstream fails with timeout (the deadline, not the node, ends it)', async () => {
    fake.state.behaviour = 'slow';
    const error = await upstream.graphql('{ chainIdentifier }').catch((e: unknown) => e);
    expect((error as UpstreamError).kind).toBe('timeout');
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

  it('repeated transport failures open the breaker, which then fails at once without calling or retrying', async () => {
    fake.state.behaviour = 'unavailable';
    for (let i = 0; i < 3; i += 1) await getInfo().catch(() => undefined);
    expect(upstream.breakers()).toEqual({ grpc: 'open' });
    const calls = fake.state.calls;
    const error = (await readInfo().catch((e: unknown) => e)) as UpstreamError;
    expect(error.kind).toBe('circuit_open');
    expect(error.message).toMatch(/circuit open/);
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(fake.state.calls).toBe(calls);
  });

  it('timeouts while the node answers other calls do not open the breaker (busy, not down); once it answers nothing they do', async () => {
    fake.state.slowMethods.add('GetObject');
    const getObject = () => upstream.call('GetObject', (o) => upstream.grpc.ledgerService.getObject({ objectId: '0x2' }, o).response)
      .then(() => 'ok', (e: UpstreamError) => e.kind);
    // A burst: more than the breaker's threshold time out in a row, while the node answers
    // another call (a success, then no other answer until the timeouts).
    const burst = Promise.all(Array.from({ length: 2 * policy.breakerFailureThreshold }, getObject));
    await getInfo();
    const busy = await burst;
    expect(busy).toEqual(Array(2 * policy.breakerFailureThreshold).fill('timeout'));
    expect(upstream.breakers()).toEqual({ grpc: 'closed' });
    const silent: string[] = [];
    for (let i = 0; i < policy.breakerFailureThreshold; i += 1) silent.push(await getObject());
    expect(silent).toEqual(Array(policy.breakerFailureThreshold).fill('timeout'));
    expect(upstream.breakers()).toEqual({ grpc: 'open' });
  });

  it.each(['invalid_argument', 'out_of_range', 'unimplemented', 'unknown', 'error', 'resource_exhausted', 'aborted'] as const)(
    'a node that answers %s never opens the breaker', async (behaviour) => {
      fake.state.behaviour = behaviour;
      for (let i = 0; i < 3 * policy.breakerFailureThreshold; i += 1) {
        const error = (await readInfo().catch((e: unknown) => e)) as UpstreamError;
        expect(error.isTransportFailure).toBe(false);
      }
      expect(upstream.breakers()).toEqual({ grpc: 'closed' });
      fake.state.behaviour = 'ok';
      expect((await readInfo()).checkpointHeight).toBe(42n);
    });

  it('classifies node answers: bad input → invalid_argument, node faults → bad_response, throttling → throttled', async () => {
    const kinds: Record<string, string> = {};
    for (const behaviour of ['invalid_argument', 'out_of_range', 'unimplemented', 'unknown', 'error', 'resource_exhausted', 'aborted'] as const) {
      fake.state.behaviour = behaviour;
      kinds[behaviour] = ((await readInfo().catch((e: unknown) => e)) as UpstreamError).kind;
    }
    expect(kinds).toEqual({
      invalid_argument: 'invalid_argument', out_of_range: 'invalid_argument', unimplemented: 'bad_response', unknown: 'bad_response',
      error: 'bad_response', resource_exhausted: 'throttled', aborted: 'throttled',
    });
  });

  it('RESOURCE_EXHAUSTED and ABORTED are not retried even on idempotent reads; UNAVAILABLE is', async () => {
    for (const [behaviour, attempts] of [['resource_exhausted', 1], ['aborted', 1], ['unavailable', 1 + policy.retries]] as const) {
      await upstream.close();
      upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
      fake.state.behaviour = behaviour;
      fake.state.calls = 0;
      await readInfo().catch(() => undefined);
      expect([behaviour, fake.state.calls]).toEqual([behaviour, attempts]);
    }
  });

  it('calls are not retried unless marked idempotent (writes get one attempt)', async () => {
    fake.state.behaviour = 'unavailable';
    await getInfo().catch(() => undefined);
    expect(fake.state.calls).toBe(1);
  });

  it('GraphQL errors beside data are an answer, not a transport failure', async () => {
    fake.state.behaviour = 'graphql_error_beside_data';
    for (let i = 0; i < 3 * policy.breakerFailureThreshold; i += 1) {
      const error = (await upstream.graphql('{ chainIdentifier }', undefined, { idempotent: true }).catch((e: unknown) => e)) as UpstreamError;
      expect(error.kind).toBe('bad_response');
    }
    expect(upstream.breakers()).toEqual({ graphql: 'closed' });
  });

  it('GraphQL HTTP 503 is a transport failure whose Retry-After is kept', async () => {
    fake.state.behaviour = 'http_503';
    const error = (await upstream.graphql('{ chainIdentifier }').catch((e: unknown) => e)) as UpstreamError;
    expect([error.kind, error.retryAfterMs, error.isTransportFailure]).toEqual(['unavailable', 2_000, true]);
  });

  it('a call whose caller goes away is cancelled at the node and never counts against the breaker', async () => {
    fake.state.behaviour = 'slow';
    for (let i = 0; i < 2 * policy.breakerFailureThreshold; i += 1) {
      const caller = new AbortController();
      const call = upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response, { idempotent: true, signal: caller.signal });
      // Abort once the node holds the call, so it is the node that sees the cancellation.
      await expect.poll(() => fake.state.calls, { timeout: 5_000 }).toBe(i + 1);
      caller.abort();
      expect(((await call.catch((e: unknown) => e)) as UpstreamError).kind).toBe('cancelled');
    }
    await expect.poll(() => fake.state.cancelled, { timeout: 2_000 }).toBe(2 * policy.breakerFailureThreshold);
    expect(upstream.breakers()).toEqual({ grpc: 'closed' });
  });

  it('a full bulkhead refuses the extra caller (overloaded) without counting against the breaker', async () => {
    await upstream.close();
    upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: { ...policy, maxConcurrentCalls: 2, maxQueuedCalls: 1 } });
    fake.state.behaviour = 'delay';
    fake.state.delayMs = 100;
    const results = await Promise.all(Array.from({ length: 8 }, () => readInfo().then(() => 'ok', (e: UpstreamError) => e.kind)));
    expect(results.filter((r) => r === 'ok')).toHaveLength(3);
    expect(results.filter((r) => r === 'overloaded')).toHaveLength(5);
    expect(fake.state.maxInFlight).toBeLessThanOrEqual(2);
    expect(upstream.breakers()).toEqual({ grpc: 'closed' });
  });

  it('one tenant\'s slow calls hold at most its share of the slots: another tenant\'s call runs at once', async () => {
    await upstream.close();
    const slowPolicy = { ...policy, deadlineMs: 60_000, attemptTimeoutMs: 60_000, maxConcurrentCalls: 4, maxConcurrentCallsPerTenant: 2 };
    upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy: slowPolicy });
    fake.state.slowMs = 60_000;
    fake.state.slowMethods.add('GetObject');
    const caller = new AbortController();
    let heavySettled = 0;
    // The heavy tenant's calls hang at the node (until cancelled): six of them, more than every slot.
    const heavy = Array.from({ length: 6 }, () => upstream.call('GetObject', (o) => upstream.grpc.ledgerService.getObject({ objectId: '0x2' }, o).response,
      { tenant: 'heavy', signal: caller.signal }).then(() => 'ok', (e: UpstreamError) => e.kind).finally(() => { heavySettled += 1; }));
    await expect.poll(() => fake.state.calls, { timeout: 5_000 }).toBe(2);
    // Another tenant's calls are answered while every heavy call still hangs (two slots are theirs to take).
    const light = await Promise.all(Array.from({ length: 2 }, () =>
      upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response, { tenant: 'light' }).then(() => 'ok')));
    expect(light).toEqual(['ok', 'ok']);
    expect(heavySettled).toBe(0);
    expect(fake.state.calls).toBe(4);
    caller.abort();
    expect(await Promise.all(heavy)).toEqual(Array(6).fill('cancelled'));
    expect(upstream.breakers()).toEqual({ grpc: 'closed' });
    fake.state.slowMs = 10_000;
  });

  it('health reports each upstream', async () => {
    const up = await upstream.health();
    expect(up).toMatchObject({ network: 'testnet', status: 'up', grpc: { status: 'up', chainId: expect.any(String), checkpointHeight: '42' }, graphql: { status: 'up' } });
    fake.state.behaviour = 'error';
    const down = await upstream.health();
    expect(down.status).toBe('down');
  });
});

describe.each(transports)('SuiUpstream (%s transport) against a stopped upstream', (grpcTransport) => {
  const policy: UpstreamPolicy = { ...basePolicy, grpcTransport };
  it('fails with unavailable and leaves no sockets behind', async () => {
    const fake = await startFakeUpstream();
    await fake.stop();
    const upstream = new SuiUpstream({ network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl }, policy });
    const grpcError = (await upstream.call('GetServiceInfo', (o) => upstream.grpc.ledgerService.getServiceInfo({}, o).response).catch((e: unknown) => e)) as UpstreamError;
    expect(['unavailable', 'timeout']).toContain(grpcError.kind);
    const gqlError = (await upstream.graphql('{ chainIdentifier }').catch((e: unknown) => e)) as UpstreamError;
    expect(gqlError.kind).toBe('unavailable');
    await upstream.close();
    // Closed sockets leave the handle list on a later turn of the loop (later still on a loaded
    // machine): poll; the deadline only bounds a leak.
    await expect.poll(() => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPWRAP'), { timeout: 10_000, interval: 50 }).toEqual([]);
  });
});
