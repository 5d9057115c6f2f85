import type { SignatureRecord, TransactionRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { notSupported } from '../errors.js';
import { nodeId } from './node-id.js';
import { transactionJson } from '../grpc-json.js';
import { pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { EffectsNode } from './effects.js';
import { EpochNode } from './epoch.js';
import { AddressNode, ObjectNode, isTombstone } from './objects.js';
import { parseTransaction } from './transaction-filters.js';
import { transactionKind } from './transaction-kind.js';

const SIMPLE_SCHEMES = { ed25519: ['Ed25519Signature', 32], secp256k1: ['Secp256K1Signature', 33], secp256r1: ['Secp256R1Signature', 33] } as const;

/** `flag ‖ signature (64) ‖ public key` for the simple schemes; others are not decoded. */
function signatureScheme(signature: SignatureRecord): object {
  const simple = SIMPLE_SCHEMES[signature.scheme as keyof typeof SIMPLE_SCHEMES];
  if (!simple) throw notSupported(`UserSignature.scheme for ${signature.scheme} signatures`);
  const [typename, keyLength] = simple;
  return { __typename: typename, signature: signature.bytes.slice(1, 65), publicKey: signature.bytes.slice(65, 65 + keyLength) };
}

export class TransactionNode {
  readonly __typename = 'Transaction';
  readonly #ctx: RequestContext;
  readonly digest: string;

  constructor(
    ctx: RequestContext,
    readonly record: TransactionRecord,
  ) {
    this.#ctx = ctx;
    this.digest = record.digest;
  }

  get id(): string {
    return nodeId('Transaction', this.digest);
  }

  sender(): AddressNode {
    return new AddressNode(this.#ctx, this.record.sender);
  }

  signatures() {
    return this.record.signatures.map((signature) => ({ __typename: 'UserSignature', signatureBytes: signature.bytes, scheme: () => signatureScheme(signature) }));
  }

  get transactionBcs(): Uint8Array {
    return this.record.bcs;
  }

  transactionJson(): unknown {
    return transactionJson(this.record);
  }

  effects(): EffectsNode {
    return new EffectsNode(this.#ctx, this.record);
  }

  gasInput() {
    const ctx = this.#ctx;
    const tx = this.record;
    return {
      __typename: 'GasInput',
      gasBudget: tx.gasBudget,
      gasPrice: tx.gasPrice,
      gasSponsor: new AddressNode(ctx, tx.gasOwner),
      gasPayment(args: PageArgs): Connection<ObjectNode> {
        const objects = tx.gasPayment.flatMap((ref, index) => {
          const record = ctx.ledger.getObjectAtVersion(ref.objectId, ref.version);
          return record && !isTombstone(record) ? [{ index, record }] : [];
        });
        return paginate(objects, (o) => o.index, pageFromArgs(args, pageLimits('GasInput', 'gasPayment')), (o) => ObjectNode.of(ctx, o.record, 'Object'));
      },
    };
  }

  expiration(): EpochNode | null {
    const expiration = parseTransaction(this.record).V1.expiration;
    if (expiration.Epoch == null) return null;
    const epoch = this.#ctx.ledger.getEpoch(BigInt(expiration.Epoch));
    return epoch ? new EpochNode(this.#ctx, epoch) : null;
  }

  kind(): object {
    return transactionKind(this.#ctx, this.record);
  }
}
