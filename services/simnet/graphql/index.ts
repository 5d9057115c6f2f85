import type { IncomingMessage, ServerResponse } from 'node:http';
import { Ledger } from '../ledger/index.js';
import type { LedgerReader } from '../ledger/index.js';
import { RequestContext } from './context.js';
import { runGraphql } from './execute.js';
import type { GraphqlRequest, GraphqlResponse, RunOptions } from './execute.js';
import { createLedgerRunner } from './ledger-runner.js';
import { createRoot } from './query.js';
import { suiSchema } from './schema.js';
import type { TransactionRunner } from './transaction-runner.js';

export type { GraphqlRequest, GraphqlResponse } from './execute.js';
export type { TransactionRunner } from './transaction-runner.js';
export { createLedgerRunner } from './ledger-runner.js';
export { GraphqlErrorCode } from './errors.js';
export { LIMITS } from './limits.js';

/** Largest request body accepted: a query plus transaction bytes and signatures. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Announced like Sui's service announces its version; `-simnet` says who answered. */
const RPC_VERSION = '2026.11.0-simnet';

export interface GraphqlServiceOptions {
  /**
   * Execution for `executeTransaction` / `simulateTransaction`. Defaults to simnet's executor
   * when `ledger` is a writable `Ledger`; over a read-only view both fields are unsupported.
   */
  readonly runner?: TransactionRunner;
}

function runnerFor(ledger: LedgerReader, options: GraphqlServiceOptions): TransactionRunner | undefined {
  return options.runner ?? (ledger instanceof Ledger ? createLedgerRunner(ledger) : undefined);
}

/** Runs one request in-process (what the HTTP handler does after reading the body). */
export function executeGraphql(
  ledger: LedgerReader,
  request: GraphqlRequest,
  options: GraphqlServiceOptions & RunOptions = {},
): Promise<GraphqlResponse> {
  const ctx = new RequestContext(ledger);
  return runGraphql(request, createRoot(ctx, runnerFor(ledger, options)), ctx, options);
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyError(413, `Request body is larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  // JSON scalars may carry u64 values as bigint; they travel as decimal strings.
  const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'x-sui-rpc-version',
    'x-sui-rpc-version': RPC_VERSION,
  });
  res.end(text);
}

function badRequest(res: ServerResponse, status: number, message: string): void {
  send(res, status, { data: null, errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
}

/** The request and its size in bytes (the body, or the query string of a GET). */
async function requestFrom(req: IncomingMessage, url: URL): Promise<{ request: GraphqlRequest; size: number }> {
  if (req.method === 'GET') {
    const variables = url.searchParams.get('variables');
    let parsedVariables: unknown;
    try {
      parsedVariables = variables ? JSON.parse(variables) : undefined;
    } catch {
      throw new BodyError(400, 'variables is not valid JSON');
    }
    const request = { query: url.searchParams.get('query') ?? undefined, variables: parsedVariables, operationName: url.searchParams.get('operationName') ?? undefined };
    return { request, size: Buffer.byteLength(url.search) };
  }
  const text = await readBody(req);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BodyError(400, 'Request body is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BodyError(400, 'Request body must be a JSON object with a `query`');
  }
  return { request: body as GraphqlRequest, size: Buffer.byteLength(text) };
}

/**
 * The HTTP face of simnet's GraphQL service: POST (JSON body) or GET (`?query=`) at `/graphql`
 * (and `/`), answered like Sui's service: 200 with `errors` for anything wrong with the query,
 * 400 for a body that is not a JSON request, CORS open.
 */
export function createGraphqlHandler(ledger: LedgerReader, options: GraphqlServiceOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const runner = runnerFor(ledger, options);
  // Building the 4,800-line schema takes a few hundred ms: pay it at start-up, not on a request.
  suiSchema();
  return (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://simnet.invalid');
      const path = url.pathname.replace(/\/+$/, '');
      if (path !== '' && path !== '/graphql') return badRequest(res, 404, `No GraphQL service at ${url.pathname}`);
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
          'access-control-max-age': '86400',
        });
        return res.end();
      }
      if (req.method !== 'POST' && req.method !== 'GET') return badRequest(res, 405, `Method ${req.method} is not allowed`);
      let received: { request: GraphqlRequest; size: number };
      try {
        received = await requestFrom(req, url);
      } catch (error) {
        if (error instanceof BodyError) return badRequest(res, error.status, error.message);
        throw error;
      }
      const { request, size } = received;
      if (req.method === 'GET' && request.query === undefined) return badRequest(res, 400, 'GET requests need a `query` parameter');
      const showUsage = req.headers['x-sui-rpc-show-usage'] !== undefined;
      send(res, 200, await executeGraphql(ledger, request, { runner, queriesOnly: req.method === 'GET', requestSize: size, showUsage }));
    })().catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      send(res, 500, { data: null, errors: [{ message: error instanceof Error ? error.message : String(error), extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    });
  };
}
