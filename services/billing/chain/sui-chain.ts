import { bcs } from '@mysten/sui/bcs';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import type { Keypair } from '@mysten/sui/cryptography';
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { fromBase64, normalizeStructTag, normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import type { Network } from '../../core/index.js';
import type { BillingNetwork, Chain, ChargeOutcome, ChargeRequest, DeclineReason, OnchainAllowance, OnchainAllowanceCap, PrepareRequest, SignedCharge } from './chain.js';
import { ChainUnavailable, ChargeDeclined, TransactionBuildFailed } from './chain.js';

/** The layout of `0x2::allowance::Allowance<Balance<T>>` (move/README.md): what verification reads. */
const AllowanceLayout = bcs.struct('Allowance', {
  id: bcs.Address,
  funder: bcs.Address,
  spender: bcs.option(bcs.Address),
  app: bcs.option(bcs.string()),
  lifetimeCap: bcs.u64(),
  lifetimeSpent: bcs.u64(),
  periodLimit: bcs.u64(),
  month: bcs.u32(),
  periodSpent: bcs.u64(),
  expirationMs: bcs.option(bcs.u64()),
  name: bcs.string(),
  startMs: bcs.u64(),
  windowMonths: bcs.u8(),
  windowStartMs: bcs.u64(),
});

/** The layout of `0x2::allowance::AllowanceCap<Balance<T>>`: the allowance it revokes. */
const AllowanceCapLayout = bcs.struct('AllowanceCap', { id: bcs.Address, allowanceId: bcs.Address });

/** Abort codes of `sui::allowance` as the billing module surfaces them (move/README.md). */
const ABORT_EXPIRED = '2';

const ALLOWANCE_TYPE = /^0x0*2::allowance::Allowance<0x0*2::balance::Balance<(.+)>>$/;
const ALLOWANCE_CAP_TYPE = /^0x0*2::allowance::AllowanceCap<0x0*2::balance::Balance<(.+)>>$/;

function isNotFound(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /not ?found|does not exist|deleted/i.test(text);
}

/**
 * The Chain over the official SDK's core API (`SuiGrpcClient` of each network's upstream): real
 * transactions, real BCS, real digests. The sponsor key signs charges and pays their gas; it is
 * never logged (only its address is public).
 */
export class SuiChain implements Chain {
  readonly spender: string;
  readonly #clients: ReadonlyMap<Network, ClientWithCoreApi>;
  readonly #settings: ReadonlyMap<Network, BillingNetwork>;
  readonly #sponsor: Keypair | undefined;

  /** Without a sponsor key no network has billing (every route answers ONCHAIN_BILLING_DISABLED). */
  constructor(options: { clients: ReadonlyMap<Network, ClientWithCoreApi>; settings: ReadonlyMap<Network, BillingNetwork>; sponsor: Keypair | undefined }) {
    this.#clients = options.clients;
    this.#settings = options.settings;
    this.#sponsor = options.sponsor;
    this.spender = options.sponsor ? normalizeSuiAddress(options.sponsor.toSuiAddress()) : '';
  }

  networks(): readonly Network[] {
    if (!this.#sponsor) return [];
    return [...this.#settings.keys()].filter((network) => this.#clients.has(network));
  }

  settings(network: Network): BillingNetwork {
    const settings = this.#settings.get(network);
    if (!settings) throw new Error(`billing is not configured on ${network}`);
    return settings;
  }

  #client(network: Network): ClientWithCoreApi {
    const client = this.#clients.get(network);
    if (!client) throw new ChainUnavailable(`no upstream for ${network}`);
    return client;
  }

  async protocolVersion(network: Network): Promise<number> {
    try {
      const { protocolConfig } = await this.#client(network).core.getProtocolConfig();
      return Number(protocolConfig.protocolVersion);
    } catch (error) {
      throw new ChainUnavailable(`protocol version of ${network} unreadable`, { cause: error });
    }
  }

  async buildPrepare(network: Network, request: PrepareRequest): Promise<Uint8Array> {
    const settings = this.settings(network);
    const tx = new Transaction();
    tx.setSender(request.funder);
    if (request.prefund > 0n) {
      // Allowances spend only from the address balance, never from coin objects (Billing rule 4),
      // so the prefund moves from the funder's coins into it. Not `coinWithBalance`: with enough
      // in the address balance already it withdraws from there and sends it back, moving nothing.
      const coins = await this.#coinsCovering(network, request.funder, settings.usdcType, request.prefund);
      const [primary, ...others] = coins.map((coin) => tx.objectRef(coin));
      if (others.length > 0) tx.mergeCoins(primary!, others);
      const [prefund] = tx.splitCoins(primary!, [request.prefund]);
      tx.moveCall({ target: '0x2::coin::send_funds', typeArguments: [settings.usdcType], arguments: [prefund!, tx.pure.address(request.funder)] });
    }
    const proposal = tx.moveCall({
      target: '0x2::allowance::propose',
      typeArguments: [settings.usdcType],
      arguments: [
        tx.pure.string(request.organization),
        tx.pure.address(this.spender),
        tx.pure.string(`${settings.packageId}::billing::BillingApp`),
        tx.pure.u64(request.periodLimit),
        tx.pure.u8(request.windowMonths),
        tx.pure.u64(request.startMs),
        tx.pure.option('u64', request.expirationMs),
      ],
    });
    tx.moveCall({ target: `${settings.packageId}::billing::issue`, typeArguments: [settings.usdcType], arguments: [tx.object(settings.configId), proposal] });
    try {
      return await tx.build({ client: this.#client(network) });
    } catch (error) {
      if (error instanceof ChainUnavailable) throw error;
      throw new TransactionBuildFailed(error instanceof Error ? error.message : String(error), { cause: error });
    }
  }

  /** The funder's coin objects of `coinType`, largest first, until they hold `amount` (TransactionBuildFailed when they cannot). */
  async #coinsCovering(network: Network, owner: string, coinType: string, amount: bigint): Promise<{ objectId: string; version: string; digest: string }[]> {
    const chosen: { objectId: string; version: string; digest: string }[] = [];
    let held = 0n;
    let cursor: string | null = null;
    do {
      let page;
      try {
        page = await this.#client(network).core.listCoins({ owner, coinType, cursor });
      } catch (error) {
        throw new ChainUnavailable(`coins of ${owner} unreadable`, { cause: error });
      }
      for (const coin of [...page.objects].sort((a, b) => (BigInt(b.balance) > BigInt(a.balance) ? 1 : -1))) {
        if (held >= amount) break;
        chosen.push({ objectId: coin.objectId, version: coin.version, digest: coin.digest });
        held += BigInt(coin.balance);
      }
      cursor = page.hasNextPage && held < amount ? page.cursor : null;
    } while (cursor);
    if (held < amount) throw new TransactionBuildFailed(`the funder's ${coinType} coins hold ${held}, below the prefund of ${amount}`);
    return chosen;
  }

  async allowance(network: Network, allowanceId: string): Promise<OnchainAllowance | null> {
    let object;
    try {
      ({ object } = await this.#client(network).core.getObject({ objectId: allowanceId, include: { content: true } }));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw new ChainUnavailable(`allowance ${allowanceId} unreadable`, { cause: error });
    }
    const match = ALLOWANCE_TYPE.exec(normalizeStructTag(object.type).replace(/0x0+2::/g, '0x2::'));
    if (!match || !object.content) return null;
    const fields = AllowanceLayout.parse(object.content);
    return {
      objectId: normalizeSuiAddress(fields.id),
      coinType: normalizeStructTag(match[1]!),
      funder: normalizeSuiAddress(fields.funder),
      spender: fields.spender === null ? null : normalizeSuiAddress(fields.spender),
      app: fields.app === null ? null : normalizeStructTag(fields.app),
      name: fields.name,
      periodLimit: BigInt(fields.periodLimit),
      windowMonths: fields.windowMonths,
      windowStartMs: Number(fields.windowStartMs),
      month: fields.month,
      periodSpent: BigInt(fields.periodSpent),
      startMs: Number(fields.startMs),
      expirationMs: fields.expirationMs === null ? null : Number(fields.expirationMs),
    };
  }

  async allowanceCap(network: Network, capId: string): Promise<OnchainAllowanceCap | null> {
    let object;
    try {
      ({ object } = await this.#client(network).core.getObject({ objectId: capId, include: { content: true } }));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw new ChainUnavailable(`allowance cap ${capId} unreadable`, { cause: error });
    }
    const match = ALLOWANCE_CAP_TYPE.exec(normalizeStructTag(object.type).replace(/0x0+2::/g, '0x2::'));
    if (!match || !object.content) return null;
    const fields = AllowanceCapLayout.parse(object.content);
    return {
      objectId: normalizeSuiAddress(fields.id),
      allowanceId: normalizeSuiAddress(fields.allowanceId),
      coinType: normalizeStructTag(match[1]!),
      owner: object.owner.$kind === 'AddressOwner' ? normalizeSuiAddress(object.owner.AddressOwner) : null,
    };
  }

  async addressBalance(network: Network, owner: string, coinType: string): Promise<bigint> {
    try {
      const { balance } = await this.#client(network).core.getBalance({ owner, coinType });
      return BigInt(balance.addressBalance);
    } catch (error) {
      throw new ChainUnavailable(`balance of ${owner} unreadable`, { cause: error });
    }
  }

  async signCharge(network: Network, request: ChargeRequest): Promise<SignedCharge> {
    const settings = this.settings(network);
    const tx = new Transaction();
    tx.setSender(this.spender);
    tx.moveCall({
      target: `${settings.packageId}::billing::charge`,
      typeArguments: [settings.usdcType],
      arguments: [
        tx.object(settings.configId),
        tx.object(request.allowanceId),
        tx.withdrawal({ amount: request.amount, type: settings.usdcType, from: 'allowance', allowance: request.allowanceId, funder: request.funder }),
        tx.pure.u64(request.period),
        tx.object.clock(),
      ],
    });
    let bytes: Uint8Array;
    try {
      bytes = await tx.build({ client: this.#client(network) });
    } catch (error) {
      const refused = executionErrorOf(error);
      if (refused && isNotSpender(refused, settings.packageId)) {
        // Our configuration, not the customer's allowance: retried hourly like a node that is down.
        throw new ChainUnavailable(`the billing sponsor key (${this.spender}) is not the spender of the billing config ${settings.configId}`);
      }
      if (refused) throw new ChargeDeclined(declineReason(refused), refused.message);
      throw new ChainUnavailable(`charge could not be built: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (!this.#sponsor) throw new ChainUnavailable('no billing sponsor key');
    const { signature } = await this.#sponsor.signTransaction(bytes);
    return { digest: TransactionDataBuilder.getDigestFromBytes(bytes), txBytes: toBase64(bytes), signature };
  }

  async submit(network: Network, charge: SignedCharge): Promise<ChargeOutcome> {
    try {
      const result = await this.#client(network).core.executeTransaction({ transaction: fromBase64(charge.txBytes), signatures: [charge.signature], include: { effects: true } });
      const transaction = result.Transaction ?? result.FailedTransaction;
      return outcomeOf(transaction.digest, transaction.status);
    } catch (error) {
      // Not known to have run: refused before execution, or executed with the answer lost (a
      // timeout, a dropped connection). The caller asks `lookup` and `isSpent` which it was.
      throw new ChainUnavailable(`charge ${charge.digest} not executed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  async lookup(network: Network, digest: string): Promise<ChargeOutcome | null> {
    try {
      const result = await this.#client(network).core.getTransaction({ digest, include: { effects: true } });
      const transaction = result.Transaction ?? result.FailedTransaction;
      return outcomeOf(transaction.digest, transaction.status);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw new ChainUnavailable(`transaction ${digest} unreadable`, { cause: error });
    }
  }

  /**
   * Whether a signed charge can never execute any more: one of its gas coins has moved on to a
   * newer version (a transaction that was not this one used it). Only then may a new charge be
   * built for the same period without risking two.
   */
  async isSpent(network: Network, charge: SignedCharge): Promise<boolean> {
    const data = bcs.TransactionData.parse(fromBase64(charge.txBytes)).V1;
    for (const payment of data.gasData.payment) {
      try {
        const { object } = await this.#client(network).core.getObject({ objectId: payment.objectId });
        if (BigInt(object.version) !== BigInt(payment.version)) return true;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw new ChainUnavailable(`gas coin ${payment.objectId} unreadable`, { cause: error });
      }
    }
    return false;
  }
}

interface ExecutionError {
  message: string;
  MoveAbort?: { abortCode: string; location?: { package?: string; module?: string } };
}

/** `billing::ENotSpender` (move/suigw_billing): the signer is not the config's spender. */
const ABORT_NOT_SPENDER = '1';

/** The billing package refused the signer: the sponsor key is not the one its config names. */
function isNotSpender(error: ExecutionError, packageId: string): boolean {
  const abort = error.MoveAbort;
  if (abort?.abortCode !== ABORT_NOT_SPENDER || abort.location?.module !== 'billing' || abort.location.package === undefined) return false;
  return normalizeSuiAddress(abort.location.package) === normalizeSuiAddress(packageId);
}

/** The SDK's dry run reports a refused transaction as an error carrying the execution error. */
function executionErrorOf(error: unknown): ExecutionError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const candidate = (current as { executionError?: ExecutionError }).executionError;
    if (candidate && typeof candidate.message === 'string') return candidate;
    current = current.cause;
  }
  return undefined;
}

function declineReason(error: ExecutionError): DeclineReason {
  if (/insufficient ?funds/i.test(error.message)) return 'balance_below_price';
  return error.MoveAbort?.abortCode === ABORT_EXPIRED ? 'allowance_expired' : 'allowance_refused';
}

function outcomeOf(digest: string, status: { success: boolean; error: ExecutionError | null }): ChargeOutcome {
  if (status.success) return { kind: 'succeeded', digest };
  const error = status.error!;
  return { kind: 'declined', digest, reason: declineReason(error), message: error.message };
}
