import http2 from 'node:http2';
import net from 'node:net';

/**
 * One HTTP/2 session to the upstream's gRPC endpoint, for callers that forward gRPC frames as
 * bytes (the gRPC proxy) rather than build typed calls. The session is opened on first use and
 * again after it closes (upstream restart, GOAWAY); every call is one stream on it, so N
 * concurrent calls cost one connection, as with grpc-js.
 */
export class RawGrpcChannel {
  readonly #origin: string;
  readonly #authority: string;
  #session: http2.ClientHttp2Session | undefined;
  #closed = false;

  constructor(grpcUrl: string) {
    const url = new URL(grpcUrl);
    const tls = url.protocol === 'https:';
    this.#origin = `${tls ? 'https' : 'http'}://${url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname}:${url.port || (tls ? '443' : '80')}`;
    this.#authority = new URL(this.#origin).host;
  }

  /** The authority of the upstream (what `:authority` should say to it). */
  get authority(): string {
    return this.#authority;
  }

  /** Opens one stream; throws when the channel is closed or the session cannot take a stream. */
  request(headers: http2.OutgoingHttpHeaders): http2.ClientHttp2Stream {
    if (this.#closed) throw new Error('channel closed');
    return this.#current().request(headers);
  }

  close(): void {
    this.#closed = true;
    this.#session?.close();
    this.#session = undefined;
  }

  #current(): http2.ClientHttp2Session {
    const existing = this.#session;
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const url = new URL(this.#origin);
    const session = http2.connect(this.#origin, {
      settings: { enablePush: false },
      peerMaxConcurrentStreams: 1_000,
      // Plaintext (h2c): small gRPC frames must not wait for Nagle's algorithm. TLS uses node's default connection.
      ...(url.protocol === 'http:' ? { createConnection: () => net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port), noDelay: true }) } : {}),
    });
    // Errors surface on the streams; an errored session is replaced on the next call.
    session.on('error', () => session.destroy());
    session.on('goaway', () => session.close());
    session.once('close', () => {
      if (this.#session === session) this.#session = undefined;
    });
    session.unref();
    this.#session = session;
    return session;
  }
}
