import type { JsonRpcE2E } from '../support/jsonrpc-e2e.js';

type Result = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON-RPC result, checked field by field by each case

/** What a conformance case may use: the gateway on simnet, its accounts, and calls through HTTP. */
export interface ConformanceEnv {
  /** The running gateway (simnet upstream, seeded admin key): `e2e.simnet`, `e2e.gateway`, `e2e.url`. */
  e2e: JsonRpcE2E;
  /** A funded simnet genesis account's address (`alice` … `mallory`; the producer never uses them). */
  address(label: string): string;
  /** One call's `result` through HTTP (throws on a JSON-RPC error): to look up what a case needs. */
  call(method: string, params?: unknown): Promise<Result>;
}

/**
 * One call of a method through the gateway: the suite sends `params(env)`, validates the result
 * against the OpenRPC document's result schema (with the wire exceptions), then runs `check`.
 * Each module under test/jsonrpc/cases/ exports `cases: ConformanceCase[]`.
 */
export interface ConformanceCase {
  method: string;
  /** What this case shows, when a method has several. */
  name?: string;
  /** Positional or named params. */
  params(env: ConformanceEnv): unknown[] | Record<string, unknown> | Promise<unknown[] | Record<string, unknown>>;
  /** Assertions beyond the schema (throw, or use vitest's expect). */
  check?(result: Result, env: ConformanceEnv): void | Promise<void>;
}
