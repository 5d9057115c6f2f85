import { connect, constants } from 'node:http2';
import { GrpcTypes } from '@mysten/sui/grpc';

/**
 * The direct subject: h2load posts one prebuilt gRPC message (5-byte prefix: uncompressed flag,
 * big-endian length; then the protobuf) to simnet over h2c, as a gRPC client would.
 */
export const LIST_BALANCES_PATH = '/sui.rpc.v2.StateService/ListBalances';
export const GRPC_HEADERS = { 'content-type': 'application/grpc', te: 'trailers' };

/** The request the gateway's balance route sends (services/rest/domain/accounts.ts). */
export function listBalancesFrame(owner: string): Buffer {
  const message = GrpcTypes.ListBalancesRequest.toBinary({ owner, pageSize: 1000 });
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/**
 * h2load counts HTTP statuses, and gRPC answers errors with 200 and a `grpc-status` trailer:
 * check once that the frame gets `grpc-status: 0` and a response message.
 */
export async function assertGrpcCallSucceeds(grpcUrl: string, path: string, frame: Buffer): Promise<void> {
  const session = connect(grpcUrl);
  try {
    await new Promise<void>((resolve, reject) => {
      session.once('error', reject);
      const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: path, ...GRPC_HEADERS });
      let bytes = 0;
      let status: unknown;
      let message: unknown;
      const read = (headers: Record<string, unknown>) => {
        status ??= headers['grpc-status'];
        message ??= headers['grpc-message'];
      };
      // A failed call may answer trailers-only: the status then comes with the headers.
      stream.once('response', read);
      stream.once('trailers', read);
      stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
      stream.once('close', () => {
        if (status === '0' && bytes > 5) resolve();
        else reject(new Error(`${path}: grpc-status ${String(status)} (${String(message)}), ${bytes} bytes`));
      });
      stream.once('error', reject);
      stream.end(frame);
    });
  } finally {
    session.close();
  }
}
