import { bcs } from '@mysten/sui/bcs';
import { fromBase64, normalizeSuiAddress } from '@mysten/sui/utils';
import type { JsonRpcMethod } from '../../method.js';
import { invalidParams } from '../../params.js';
import { read } from './upstream-reads.js';

/** sui_verifyZkLoginSignature on gRPC SignatureVerificationService.VerifySignature. */
export const verifyZkLoginSignature: JsonRpcMethod = {
  name: 'sui_verifyZkLoginSignature',
  translatesTo: 'gRPC SignatureVerificationService.VerifySignature',
  unfilled: ['errors: the one reason v2 gives'],
  async handle(params, context) {
    let message: Uint8Array;
    let signature: Uint8Array;
    try {
      message = fromBase64(String(params.bytes));
      signature = fromBase64(String(params.signature));
    } catch {
      throw invalidParams('bytes and signature must be base64');
    }
    const personal = params.intent_scope === 'PersonalMessage';
    const response = await read(context, 'VerifySignature', (rpc) => context.upstream.grpc.signatureVerificationService.verifySignature({
      // A personal message is signed as the BCS vector<u8> of its bytes; transaction data as is.
      message: { name: personal ? 'PersonalMessage' : 'TransactionData', value: personal ? bcs.byteVector().serialize(message).toBytes() : message },
      signature: { bcs: { name: 'UserSignatureBytes', value: signature }, signature: { oneofKind: undefined } },
      address: normalizeSuiAddress(String(params.author)),
      jwks: [],
    }, rpc));
    return response.isValid ? { success: true, errors: [] } : { success: false, errors: [response.reason ?? 'invalid signature'] };
  },
};
