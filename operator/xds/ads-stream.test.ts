import { describe, expect, it } from 'vitest';
import { AdsStreamState } from './ads-stream.js';
import { encodeSnapshot } from './encoded-snapshot.js';
import { readCase } from '../../test/support/xds-golden-cases.js';
import { translateToEnvoy } from './translate-envoy.js';
import { TYPE_URL } from './type-urls.js';

const snapshot = encodeSnapshot(translateToEnvoy(readCase('two-networks')));
const namesIn = (response: { resources: { value: Buffer }[] }) => response.resources.length;

describe('ADS stream state (state of the world)', () => {
  it('answers a wildcard subscription (Envoy) with every resource of the type', () => {
    const state = new AdsStreamState();
    expect(state.onRequest({ type_url: TYPE_URL.cluster, node: { id: 'envoy-1' } })).toEqual({ kind: 'respond', typeUrl: TYPE_URL.cluster });
    const response = state.response(TYPE_URL.cluster, snapshot);
    expect(namesIn(response)).toBe(5);
    expect(response).toMatchObject({ version_info: '3f2a9c0d1e7b4a55', type_url: TYPE_URL.cluster, nonce: '1' });
    expect(state.nodeId).toBe('envoy-1');
  });

  it('answers a named subscription (proxyless gRPC) with the named resources that exist', () => {
    const state = new AdsStreamState();
    state.onRequest({ type_url: TYPE_URL.listener, resource_names: ['mainnet.grpc.example.com', 'unknown.example.com'] });
    expect(namesIn(state.response(TYPE_URL.listener, snapshot))).toBe(1);
  });

  it('treats a matching nonce without error as an ACK, a changed subscription as a new request', () => {
    const state = new AdsStreamState();
    state.onRequest({ type_url: TYPE_URL.route, resource_names: ['suigw-public'] });
    const { nonce } = state.response(TYPE_URL.route, snapshot);
    expect(state.onRequest({ node: { id: 'envoy-1' }, type_url: TYPE_URL.route, resource_names: ['suigw-public'], response_nonce: nonce, version_info: '3f2a9c0d1e7b4a55' })).toEqual({
      kind: 'ack',
      typeUrl: TYPE_URL.route,
      ack: { nodeId: 'envoy-1', kind: 'route', typeUrl: TYPE_URL.route, version: '3f2a9c0d1e7b4a55' },
    });
    expect(state.onRequest({ type_url: TYPE_URL.route, resource_names: ['suigw-public', 'other'], response_nonce: nonce })).toEqual({
      kind: 'respond',
      typeUrl: TYPE_URL.route,
    });
  });

  it('ignores a request carrying a stale nonce and a type it does not serve', () => {
    const state = new AdsStreamState();
    state.onRequest({ type_url: TYPE_URL.cluster });
    state.response(TYPE_URL.cluster, snapshot);
    state.response(TYPE_URL.cluster, snapshot);
    expect(state.onRequest({ type_url: TYPE_URL.cluster, response_nonce: '1', error_detail: { message: 'old' } })).toEqual({ kind: 'ignore' });
    expect(state.onRequest({ type_url: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret' })).toEqual({ kind: 'ignore' });
  });

  it('turns error_detail on the latest nonce into a NACK naming both versions', () => {
    const state = new AdsStreamState();
    state.onRequest({ type_url: TYPE_URL.listener, node: { id: 'grpc-client' }, resource_names: ['mainnet.grpc.example.com'] });
    const { nonce } = state.response(TYPE_URL.listener, snapshot);
    const outcome = state.onRequest({
      type_url: TYPE_URL.listener,
      resource_names: ['mainnet.grpc.example.com'],
      response_nonce: nonce,
      version_info: 'previous',
      error_detail: { code: 3, message: 'filter not supported' },
    });
    expect(outcome).toEqual({
      kind: 'nack',
      nack: {
        nodeId: 'grpc-client',
        kind: 'listener',
        typeUrl: TYPE_URL.listener,
        rejectedVersion: '3f2a9c0d1e7b4a55',
        acceptedVersion: 'previous',
        message: 'filter not supported',
      },
    });
  });
});
