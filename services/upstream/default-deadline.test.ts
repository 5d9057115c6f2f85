import { RpcError } from '@protobuf-ts/runtime-rpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../test/support/fake-upstream.js';
import { RequestCancellation } from './request-cancellation.js';
import { SuiUpstream } from './sui-upstream.js';
import { defaultUpstreamPolicy, type UpstreamGrpcTransport } from './types.js';

/**
 * SDK calls no `Upstream.call` wraps (a transaction's build, billing) get a deadline from the
 * client: a node that accepts a call and never answers cannot hold its caller. The fake node
 * holds GetServiceInfo for 1.5 s; the deadlines below are far shorter or far longer.
 */
describe.each<UpstreamGrpcTransport>(['h2', 'grpc-js'])('grpcWithDeadline (%s transport)', (grpcTransport) => {
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let upstream: SuiUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    fake.state.slowMs = 1_500;
    fake.state.slowMethods.add('GetServiceInfo');
    upstream = new SuiUpstream({
      network: 'testnet', endpoints: { grpcUrl: fake.grpcUrl, graphqlUrl: fake.graphqlUrl },
      policy: { ...defaultUpstreamPolicy, grpcTransport, attemptTimeoutMs: 100 },
    });
  });
  afterAll(async () => {
    await upstream.close();
    await fake.stop();
  });

  const codeOf = (call: Promise<unknown>) => call.then(() => 'answered', (error: unknown) => (error instanceof RpcError ? error.code : String(error)));

  it('gives a call without a deadline the policy\'s attempt timeout by default, or the one asked for', async () => {
    expect(await codeOf(upstream.grpcWithDeadline().ledgerService.getServiceInfo({}).response)).toBe('DEADLINE_EXCEEDED');
    expect(await codeOf(upstream.grpcWithDeadline(100).core.getChainIdentifier())).toBe('DEADLINE_EXCEEDED');
    expect(await codeOf(upstream.grpcWithDeadline(60_000).ledgerService.getServiceInfo({}).response)).toBe('answered');
  });

  it('leaves a caller\'s own timeout as it is', async () => {
    expect(await codeOf(upstream.grpcWithDeadline(100).ledgerService.getServiceInfo({}, { timeout: 60_000 }).response)).toBe('answered');
  });

  it('ends by a request\'s deadline at the latest, also through the request\'s view of the upstream', async () => {
    expect(await codeOf(upstream.grpcWithDeadline(60_000, Date.now() + 100).ledgerService.getServiceInfo({}).response)).toBe('DEADLINE_EXCEEDED');
    const request = upstream.forRequest(upstream.budget(Date.now() - (defaultUpstreamPolicy.deadlineMs - 100), new RequestCancellation()));
    expect(await codeOf(request.grpcWithDeadline(60_000).ledgerService.getServiceInfo({}).response)).toBe('DEADLINE_EXCEEDED');
  });
});
