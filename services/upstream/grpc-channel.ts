import { credentials } from '@grpc/grpc-js';
import { GrpcTransport } from '@protobuf-ts/grpc-transport';

/**
 * A native gRPC (HTTP/2) transport for `SuiGrpcClient`. The SDK's default speaks gRPC-Web over
 * fetch; on a server we want one multiplexed HTTP/2 connection with keepalive instead.
 */
export function createGrpcTransport(grpcUrl: string): GrpcTransport {
  const url = new URL(grpcUrl);
  const tls = url.protocol === 'https:';
  const port = url.port || (tls ? '443' : '80');
  return new GrpcTransport({
    host: `${url.hostname}:${port}`,
    channelCredentials: tls ? credentials.createSsl() : credentials.createInsecure(),
    clientOptions: {
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // Reconnect quickly after an upstream restart instead of backing off for minutes.
      'grpc.max_reconnect_backoff_ms': 2_000,
      'grpc.initial_reconnect_backoff_ms': 200,
    },
  });
}
