import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { createLogger, type Clock } from '../../../services/core/index.js';
import type { Database } from '../../../services/db/index.js';
import { Operator } from '../../../operator/runtime/operator.js';
import type { Timers } from '../../../operator/runtime/timers.js';
import type { TranslationSettings } from '../../../operator/translate/types.js';
import { KubeApiDouble, typesFromCrd } from './api-server.js';

export const CRD_DIR = join(import.meta.dirname, '..', '..', '..', 'crds', 'generated');

/** An API-server double that serves the generated CRDs. */
export async function startApiDouble(): Promise<{ api: KubeApiDouble; url: string }> {
  const types = readdirSync(CRD_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => typesFromCrd(parse(readFileSync(join(CRD_DIR, f), 'utf8'))));
  const api = new KubeApiDouble(types);
  return { api, url: await api.listen() };
}

/** A client configuration for the double; `token` tells this client's requests apart. */
export function kubeConfigFor(url: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // The client refuses http:// unless TLS verification is off (NOTES.md).
    clusters: [{ name: 'double', server: url, skipTLSVerify: true }],
    users: [{ name: token, token }],
    contexts: [{ name: 'double', cluster: 'double', user: token, namespace: 'default' }],
    currentContext: 'double',
  });
  return kc;
}

export const TEST_SETTINGS: Omit<TranslationSettings, 'now'> = {
  namespace: 'suigw',
  image: 'suigw:test',
  envSecret: 'suigw-env',
  eventsPerWorker: 500,
  maxStreamWorkers: 10,
  streamsResources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } },
  billingResources: { requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '384Mi' } },
  hosts: [{ network: 'mainnet', http: ['mainnet.api.test'], grpc: ['mainnet.grpc.test'] }],
  backends: {
    gateway: { name: 'suigw-gateway', protocol: 'http1', endpoints: [{ address: '127.0.0.1', port: 8080 }], timeoutMs: 15_000 },
    grpc: { name: 'suigw-grpc', protocol: 'http2', endpoints: [{ address: '127.0.0.1', port: 9090 }], timeoutMs: 15_000 },
    authz: { name: 'suigw-authz', protocol: 'http2', endpoints: [{ address: '127.0.0.1', port: 9001 }], timeoutMs: 200 },
    ratelimit: { name: 'suigw-ratelimit', protocol: 'http2', endpoints: [{ address: '127.0.0.1', port: 9002 }], timeoutMs: 20 },
    streams: { name: 'suigw-streams', protocol: 'http1', endpoints: [{ address: '127.0.0.1', port: 8090 }], timeoutMs: 15_000 },
  },
};

export function testOperator(url: string, identity: string, database: Database, clock: Clock, timers?: Timers): Operator {
  return new Operator({
    kubeConfig: kubeConfigFor(url, identity),
    database,
    clock,
    logger: createLogger(process.env['SUIGW_TEST_LOG'] ?? 'silent'),
    settings: TEST_SETTINGS,
    lease: { namespace: 'suigw', name: 'suigw-operator', identity, leaseDurationMs: 15_000, retryMs: 100 },
    ...(timers ? { timers } : {}),
    quietMs: 20,
    maxMs: 100,
  });
}

/** Polls until `check` returns a value (not a timing assertion: the deadline only bounds a hang). */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, what: string, deadlineMs = 10_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
