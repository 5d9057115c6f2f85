import type { IncomingMessage, ServerResponse } from 'node:http';
import { isValidSuiAddress, normalizeSuiAddress } from '@mysten/sui/utils';
import { Executor } from '../execution/index.js';
import type { Ledger } from '../ledger/index.js';
import { FaucetError, sendFromFaucet } from './faucet-transfer.js';
import { COIN_TYPES } from '../ledger/catalog.js';
import { SUI_COIN_TYPE } from '../ledger/constants.js';

export { sendFromFaucet, FaucetError } from './faucet-transfer.js';
export type { FaucetTransfer } from './faucet-transfer.js';

/** What one faucet request sends: 10 SUI, as Sui's devnet faucet does. */
export const FAUCET_AMOUNT_MIST = 10_000_000_000n;
/** What one `POST /v2/usdc` sends: 1,000 USDC (simnet only: enough to try a year of a plan). */
export const FAUCET_AMOUNT_USDC = 1_000_000_000n;
const MAX_BODY_BYTES = 16 * 1024;

class BadFaucetRequest extends Error {}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'access-control-allow-origin': '*' });
  res.end(text);
}

async function readRecipient(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadFaucetRequest('request body is too large');
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadFaucetRequest('request body is not valid JSON');
  }
  const recipient = (body as { FixedAmountRequest?: { recipient?: unknown } } | null)?.FixedAmountRequest?.recipient;
  if (typeof recipient !== 'string') throw new BadFaucetRequest('expected {"FixedAmountRequest": {"recipient": "0x…"}}');
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(recipient) || !isValidSuiAddress(normalizeSuiAddress(recipient))) {
    throw new BadFaucetRequest(`invalid recipient address: ${recipient}`);
  }
  return normalizeSuiAddress(recipient);
}

/** The paths the faucet answers: the SDK's V2 and the older gas requests, and USDC for billing. */
export const FAUCET_PATHS: ReadonlySet<string> = new Set(['/v2/gas', '/v2/usdc', '/v1/gas', '/gas']);

/**
 * simnet's faucet, compatible with `requestSuiFromFaucetV2` (`POST /v2/gas`) and the older
 * `POST /gas` / `/v1/gas`: each request is a real transfer from the ledger's faucet account,
 * executed by simnet's executor and visible once the next checkpoint is sealed. Requests run one at a time so each sees the faucet
 * coin's latest version. Bad input answers 400 with the V2 failure shape.
 */
export function createFaucetHandler(
  ledger: Ledger,
  options: { amount?: bigint; executor?: Executor } = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const amount = options.amount ?? FAUCET_AMOUNT_MIST;
  const executor = options.executor ?? new Executor(ledger);
  let queue: Promise<unknown> = Promise.resolve();
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://simnet.invalid').pathname.replace(/\/+$/, '');
    const usdc = path === '/v2/usdc';
    const v2 = path === '/v2/gas' || usdc;
    const legacy = path === '/gas' || path === '/v1/gas';
    const failure = (status: number, message: string) =>
      send(res, status, v2 ? { status: { Failure: { internal: message } }, coins_sent: null } : { transferredGasObjects: [], error: message });
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST, OPTIONS', 'access-control-allow-headers': 'content-type' });
      res.end();
      return;
    }
    if (!v2 && !legacy) return failure(404, `no faucet endpoint at ${path}`);
    const [coinType, sent] = usdc ? [COIN_TYPES.USDC, FAUCET_AMOUNT_USDC] : [SUI_COIN_TYPE, amount];
    if (req.method !== 'POST') return failure(405, `method ${req.method} is not allowed`);
    const work = readRecipient(req).then(async (recipient) => {
      const run = queue.then(() => sendFromFaucet(ledger, recipient, sent, executor, coinType));
      queue = run.catch(() => undefined);
      const { transaction, coinId } = await run;
      const coin = { amount: Number(sent), id: coinId, transferTxDigest: transaction.digest };
      send(res, 200, v2 ? { status: 'Success', coins_sent: [coin] } : { transferredGasObjects: [coin], error: null });
    });
    work.catch((error: unknown) => {
      if (res.headersSent) return;
      if (error instanceof BadFaucetRequest) return failure(400, error.message);
      if (error instanceof FaucetError) return failure(503, error.message);
      failure(500, error instanceof Error ? error.message : String(error));
    });
  };
}
