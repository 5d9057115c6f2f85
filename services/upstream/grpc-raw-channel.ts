import http2 from 'node:http2';
import net from 'node:net';

/** HTTP/2 PINGs while calls are open, so a silently dead connection fails its calls instead of hanging them. */
export interface KeepaliveOptions {
  intervalMs: number;
  /** No PING ack within this long: the session is destroyed and its calls fail as UNAVAILABLE. */
  timeoutMs: number;
}

/**
 * One HTTP/2 session to the upstream's gRPC endpoint, shared by the gRPC proxy (frames forwarded
 * as bytes) and the typed calls of `Http2GrpcTransport`. The session is opened on first use and
 * again after it closes (upstream restart, GOAWAY); every call is one stream on it, so N
 * concurrent calls cost one connection, as with grpc-js.
 */
export class RawGrpcChannel {
  readonly #origin: string;
  readonly #authority: string;
  readonly #keepalive: KeepaliveOptions | undefined;
  #session: http2.ClientHttp2Session | undefined;
  #closed = false;
  /**
   * Streams not yet closed, across sessions. Pings go only while there are some: gRPC servers
   * answer pings on an idle connection with GOAWAY ENHANCE_YOUR_CALM (grpc-js's default too).
   */
  #openStreams = 0;
  readonly #streamClosed = () => { this.#openStreams -= 1; };

  constructor(grpcUrl: string, options: { keepalive?: KeepaliveOptions } = {}) {
    this.#keepalive = options.keepalive;
    const url = new URL(grpcUrl);
    const tls = url.protocol === 'https:';
    // An IPv6 literal's hostname keeps its brackets (`[::1]`), as an origin needs them.
    this.#origin = `${tls ? 'https' : 'http'}://${url.hostname}:${url.port || (tls ? '443' : '80')}`;
    this.#authority = new URL(this.#origin).host;
  }

  /** The authority of the upstream (what `:authority` should say to it). */
  get authority(): string {
    return this.#authority;
  }

  /** Opens one stream; throws when the channel is closed or the session cannot take a stream. */
  request(headers: http2.OutgoingHttpHeaders): http2.ClientHttp2Stream {
    if (this.#closed) throw new Error('channel closed');
    const stream = this.#current().request(headers);
    if (this.#keepalive) {
      this.#openStreams += 1;
      stream.once('close', this.#streamClosed);
    }
    return stream;
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
    if (this.#keepalive) this.#keepAlive(session, this.#keepalive);
    this.#session = session;
    return session;
  }

  #keepAlive(session: http2.ClientHttp2Session, { intervalMs, timeoutMs }: KeepaliveOptions): void {
    const interval = setInterval(() => {
      if (this.#openStreams === 0 || session.closed || session.destroyed) return;
      const timeout = setTimeout(() => session.destroy(new Error(`keepalive: no PING ack within ${timeoutMs} ms`)), timeoutMs);
      timeout.unref();
      const sent = session.ping((error) => {
        clearTimeout(timeout);
        // A session closing gracefully (GOAWAY) cancels its pings; its calls finish on their own.
        if (error && !session.closed && !session.destroyed) session.destroy(error);
      });
      if (!sent) clearTimeout(timeout);
    }, intervalMs);
    interval.unref();
    session.once('close', () => clearInterval(interval));
  }
}
