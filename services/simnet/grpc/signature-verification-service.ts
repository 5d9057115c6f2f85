import type { GrpcTypes } from '@mysten/sui/grpc';
import { bcs } from '@mysten/sui/bcs';
import type { LedgerReader } from '../ledger/index.js';
import { verifyUserSignature } from '../execution/signatures.js';
import { invalidArgument } from './errors.js';
import { parseAddress } from './validate.js';

export class SignatureVerificationServiceImpl {
  readonly #ledger: LedgerReader;

  constructor(ledger: LedgerReader) {
    this.#ledger = ledger;
  }

  async verifySignature(request: GrpcTypes.VerifySignatureRequest): Promise<GrpcTypes.VerifySignatureResponse> {
    const message = request.message;
    if (!message?.value) throw invalidArgument('message is required');
    const signature = request.signature?.bcs?.value;
    if (!signature) throw invalidArgument('signature.bcs is required');
    const address = request.address ? parseAddress(request.address, 'address') : undefined;
    let kind: 'transaction' | 'personalMessage';
    let bytes: Uint8Array;
    if (message.name === 'TransactionData') {
      kind = 'transaction';
      bytes = message.value;
    } else if (message.name === 'PersonalMessage') {
      kind = 'personalMessage';
      try {
        bytes = bcs.byteVector().parse(message.value);
      } catch {
        throw invalidArgument('PersonalMessage must be a BCS vector<u8>');
      }
    } else {
      throw invalidArgument(`unsupported message type ${message.name ?? ''}`);
    }
    try {
      const verified = await verifyUserSignature({ kind, bytes }, signature, this.#ledger.currentEpoch().epoch);
      if (address && verified.address !== address) return { isValid: false, reason: `signature is for ${verified.address}, not ${address}` };
      return { isValid: true };
    } catch (error) {
      return { isValid: false, reason: (error as Error).message };
    }
  }
}
