/**
 * The visitor's address: the one rule every listener uses for its per-IP limits (the HTTP app
 * through fastify's `trustProxy`, the gRPC proxy natively and over gRPC-Web through
 * `clientAddressOf`), from the one setting `SUIGW_TRUST_PROXY` (services/core/config.ts).
 *
 * The setting is how many proxy hops in front of the process are trusted, counted as proxy-addr
 * counts them: hop 1 is the socket's peer, hop 2 the X-Forwarded-For entry it appended (the
 * rightmost), and so on. With `n` hops the visitor is the X-Forwarded-For entry `n` from the right
 * (or the leftmost, when there are fewer). Entries further left are whatever the client sent and
 * are never read: an appending proxy (Envoy with `use_remote_address`) keeps them, so a client
 * that sends `X-Forwarded-For: <anyone>` cannot be counted as <anyone>.
 *
 * `true` (deprecated) trusts every hop: the leftmost entry, which a client chooses itself behind
 * an appending proxy. It is right only behind a proxy that replaces X-Forwarded-For.
 */

/** Trusted proxy hops in front of the process (0: none, the socket's peer is the visitor), or `true` for every hop (deprecated). */
export type TrustProxy = number | true;

/** proxy-addr's trust function (`(address, hop) => trusted`, hop 0 the socket's peer) for `trust`. */
export function proxyTrust(trust: TrustProxy): (address: string | undefined, hop: number) => boolean {
  return trust === true ? () => true : (_address, hop) => hop < trust;
}

/**
 * The visitor's address for a connection from `socketAddress` carrying `forwardedFor` (the
 * X-Forwarded-For header, repeated ones as one list), under `trust`: what fastify's `request.ip`
 * is with `trustProxy: proxyTrust(trust)`.
 */
export function clientAddressOf(socketAddress: string | undefined, forwardedFor: string | readonly string[] | undefined, trust: TrustProxy): string | undefined {
  if (trust !== true && trust <= 0) return socketAddress;
  const trusted = proxyTrust(trust);
  // [the socket's peer, the rightmost entry, ..., the leftmost]: proxy-addr's order.
  const header = typeof forwardedFor === 'string' ? forwardedFor : (forwardedFor ?? []).join(',');
  const entries = header.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '').reverse();
  const addresses = [socketAddress, ...entries];
  let hop = 0;
  while (hop < addresses.length - 1 && trusted(addresses[hop], hop)) hop++;
  return addresses[hop];
}
