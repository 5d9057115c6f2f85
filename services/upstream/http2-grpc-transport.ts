import {
  Deferred, mergeRpcOptions, RpcError, RpcOutputStreamController, ServerStreamingCall, UnaryCall,
  type ClientStreamingCall, type DuplexStreamingCall, type MethodInfo, type RpcMetadata, type RpcOptions, type RpcStatus, type RpcTransport,
} from '@protobuf-ts/runtime-rpc';
import { Http2GrpcCall } from './http2-grpc-call.js';
import type { RawGrpcChannel } from './grpc-raw-channel.js';

/** grpc-js's `grpc.max_receive_message_length` as `createGrpcTransport` sets it. */
const MAX_RECEIVE_LENGTH = 64 * 1024 * 1024;

/**
 * protobuf-ts's `RpcTransport` over `node:http2`, on the upstream's shared `RawGrpcChannel`: what
 * `SuiGrpcClient` calls when `SUIGW_UPSTREAM_GRPC_TRANSPORT=h2`. It does per call what grpc-js
 * does for us (framing, deadline, cancel, status) without grpc-js's per-call filter stack,
 * metadata objects and subchannel machinery; failures come out as the same `RpcError` codes
 * `@protobuf-ts/grpc-transport` gives (docs/architecture.md, "Upstream transport").
 *
 * Sui's v2 API has no client-streaming or bidirectional methods; those throw UNIMPLEMENTED.
 */
export class Http2GrpcTransport implements RpcTransport {
  readonly #channel: RawGrpcChannel;
  readonly #defaults: Partial<RpcOptions>;

  constructor(channel: RawGrpcChannel, defaults: Partial<RpcOptions> = {}) {
    this.#channel = channel;
    this.#defaults = defaults;
  }

  mergeOptions(options?: Partial<RpcOptions>): RpcOptions {
    return mergeRpcOptions(this.#defaults, options);
  }

  unary<I extends object, O extends object>(method: MethodInfo<I, O>, input: I, options: RpcOptions): UnaryCall<I, O> {
    const call = new UnaryGrpcCall(method, options);
    call.start(this.#channel, input);
    return new UnaryCall(method, options.meta ?? {}, input, call.headers.promise, call.message.promise, call.status.promise, call.trailers.promise);
  }

  serverStreaming<I extends object, O extends object>(method: MethodInfo<I, O>, input: I, options: RpcOptions): ServerStreamingCall<I, O> {
    const call = new ServerStreamingGrpcCall(method, options);
    call.start(this.#channel, input);
    return new ServerStreamingCall(method, options.meta ?? {}, input, call.headers.promise, call.messages, call.status.promise, call.trailers.promise);
  }

  clientStreaming<I extends object, O extends object>(method: MethodInfo<I, O>): ClientStreamingCall<I, O> {
    throw unimplemented(method);
  }

  duplex<I extends object, O extends object>(method: MethodInfo<I, O>): DuplexStreamingCall<I, O> {
    throw unimplemented(method);
  }
}

function unimplemented(method: MethodInfo): RpcError {
  const error = new RpcError(`${method.service.typeName}/${method.name}: only unary and server-streaming calls are supported`, 'UNIMPLEMENTED');
  error.methodName = method.name;
  error.serviceName = method.service.typeName;
  return error;
}

/** The promises every call shape hands its caller, settled the way `@protobuf-ts/grpc-transport` settles them. */
abstract class SettledGrpcCall<I extends object, O extends object> extends Http2GrpcCall<I, O> {
  readonly headers = new Deferred<RpcMetadata>();
  readonly status = new Deferred<RpcStatus>();
  readonly trailers = new Deferred<RpcMetadata>();

  constructor(method: MethodInfo<I, O>, options: RpcOptions) {
    super(method, options, MAX_RECEIVE_LENGTH);
  }

  protected headersReceived(meta: RpcMetadata): void {
    this.headers.resolvePending(meta);
  }

  protected decode(message: Buffer): O {
    try {
      return this.method.O.fromBinary(message, this.options.binaryOptions);
    } catch (error) {
      throw new RpcError(`Response message parsing error: ${error instanceof Error ? error.message : String(error)}`, 'INTERNAL');
    }
  }

  protected settleCompleted(detail: string, trailers: RpcMetadata): void {
    this.headers.resolvePending({});
    this.status.resolvePending({ code: 'OK', detail });
    this.trailers.resolvePending(trailers);
  }

  protected settleFailed(error: RpcError): void {
    this.headers.rejectPending(error);
    this.status.rejectPending(error);
    this.trailers.rejectPending(error);
  }
}

class UnaryGrpcCall<I extends object, O extends object> extends SettledGrpcCall<I, O> {
  readonly message = new Deferred<O>();
  #response: O | undefined;

  protected messageReceived(message: Buffer): void {
    // grpc-js's wording and code for a unary answer that is not exactly one message.
    if (this.#response !== undefined) throw new RpcError('Too many responses received', 'UNIMPLEMENTED');
    this.#response = this.decode(message);
  }

  protected completed(detail: string, trailers: RpcMetadata): void {
    if (this.#response === undefined) {
      this.failed(Object.assign(new RpcError('No message received', 'UNIMPLEMENTED', trailers), { methodName: this.method.name, serviceName: this.method.service.typeName }));
      return;
    }
    this.message.resolvePending(this.#response);
    this.settleCompleted(detail, trailers);
  }

  protected failed(error: RpcError): void {
    this.message.rejectPending(error);
    this.settleFailed(error);
  }
}

class ServerStreamingGrpcCall<I extends object, O extends object> extends SettledGrpcCall<I, O> {
  readonly messages = new RpcOutputStreamController<O>();

  protected messageReceived(message: Buffer): void {
    this.messages.notifyMessage(this.decode(message));
  }

  protected completed(detail: string, trailers: RpcMetadata): void {
    this.settleCompleted(detail, trailers);
    if (!this.messages.closed) this.messages.notifyComplete();
  }

  protected failed(error: RpcError): void {
    if (!this.messages.closed) this.messages.notifyError(error);
    this.settleFailed(error);
  }
}
