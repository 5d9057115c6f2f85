/**
 * HTTP/2 rapid reset (CVE-2023-44487): a client opens streams and resets each at once, so every
 * stream costs the proxy a call (authentication, admission, an upstream stream) and the client
 * nothing. Node's nghttp2 only sends GOAWAY after about a thousand resets a session. This is
 * Envoy's rule for premature resets, per session: a stream the client resets within
 * PREMATURE_RESET_MS of opening it is premature; once PREMATURE_RESETS_TOLERATED of them are more
 * than half of the session's closed streams, the session is told to go away (docs/grpc.md,
 * "Abusive connections").
 */
export const PREMATURE_RESET_MS = 1_000;
export const PREMATURE_RESETS_TOLERATED = 100;

/** One session's count of closed streams and of the premature resets among them. */
export class SessionResets {
  #closed = 0;
  #premature = 0;

  /** Counts one closed stream; true when the session must be closed. */
  closed(premature: boolean): boolean {
    this.#closed += 1;
    if (premature) this.#premature += 1;
    return this.#premature >= PREMATURE_RESETS_TOLERATED && this.#premature * 2 > this.#closed;
  }
}
