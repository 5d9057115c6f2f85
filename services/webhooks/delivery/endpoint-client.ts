import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { AttemptOutcome } from './deliveries.js';
import { AddressNotAllowedError, guardedAgents, type Resolve } from './guarded-agents.js';
import { parseRetryAfter } from './retry-schedule.js';

/** What is read of a receiver's answer at most: the status is what counts, the body is only drained. */
export const RESPONSE_BODY_CAP_BYTES = 64 * 1024;

export interface EndpointClientOptions {
  /** Deadline of one attempt: connecting, sending, the response headers and the capped body. */
  timeoutMs: number;
  /** Non-public addresses (IPs, CIDRs) that may be reached anyway; every other one is refused. */
  allowedAddresses: readonly string[];
  userAgent?: string;
  /** Name resolution; the system resolver unless a test plays a DNS answer that changed. */
  resolve?: Resolve;
}

/**
 * POSTs deliveries to customer endpoints, guarded against SSRF: the agents check the address a
 * host name resolves to at connection time, with the same rule as when the URL was set
 * (definitions/endpoint-address), so a name that points to a private, loopback, link-local or
 * metadata address is refused even if it changed after the URL was accepted. Redirects are not followed (a 3xx is a failed attempt): a redirect would
 * otherwise lead a signed delivery wherever the receiver says.
 */
export class EndpointClient {
  readonly #options: EndpointClientOptions;
  readonly #http: http.Agent;
  readonly #https: https.Agent;

  constructor(options: EndpointClientOptions) {
    this.#options = options;
    const agents = guardedAgents(options.allowedAddresses, options.resolve);
    this.#http = agents.http;
    this.#https = agents.https;
  }

  /**
   * One attempt; never throws: a failure is an outcome with a null status and an error. A
   * kept-alive connection closed under the delivery before any answer (the receiver's idle
   * timeout raced ours) is not a failed attempt: the delivery is sent once more, within the same
   * deadline, on a new connection (Node's documented `reusedSocket` retry; the receiver's other
   * idle connections are dropped first, as likely closed too). Most likely the receiver never
   * read it; if it did (it crashed answering), it gets the same `webhook-id` twice, which
   * at-least-once delivery allows.
   */
  post(url: string, headers: Record<string, string>, body: string, now: () => number): Promise<AttemptOutcome> {
    return new Promise<AttemptOutcome>((resolve) => {
      const target = new URL(url);
      const agent = target.protocol === 'https:' ? this.#https : this.#http;
      let settled = false;
      let current: http.ClientRequest | undefined;
      let resent = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        current?.destroy(new Error('timeout'));
        finish({ status: null, retryAfterMs: null, error: `no answer within ${this.#options.timeoutMs} ms`, timedOut: true });
      }, this.#options.timeoutMs);
      const send = () => {
        let answered = false;
        const request = (target.protocol === 'https:' ? https : http).request(target, {
          method: 'POST',
          agent,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': this.#options.userAgent ?? 'suigw-webhooks/1',
          },
        }, (response) => {
          answered = true;
          const status = response.statusCode ?? null;
          const retryAfter = response.headers['retry-after'];
          const outcome: AttemptOutcome = {
            status,
            retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now()),
            error: status !== null && status >= 200 && status < 300 ? null : `HTTP ${status}`,
          };
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            // Past the cap the rest is not wanted: the connection is dropped, the status stands.
            if (read > RESPONSE_BODY_CAP_BYTES) {
              response.destroy();
              finish(outcome);
            }
          });
          response.on('end', () => finish(outcome));
          response.on('error', () => finish(outcome));
          response.on('close', () => finish(outcome));
        });
        current = request;
        request.on('error', (error) => {
          if (settled || answered || resent || !request.reusedSocket || !closedUnderUs(error)) {
            finish({ status: null, retryAfterMs: null, error: describe(error) });
            return;
          }
          resent = true;
          dropIdleConnections(agent, target);
          send();
        });
        request.end(body);
      };
      send();
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}

/**
 * Closes the agent's idle connections to `target`'s host and port, so that the next request opens
 * a new one. The agent's pool names start `host:port:` (then TLS options for https).
 */
function dropIdleConnections(agent: http.Agent, target: URL): void {
  const { hostname, port } = urlToHttpOptions(target);
  const prefix = `${hostname}:${port || (target.protocol === 'https:' ? 443 : 80)}:`;
  for (const [name, sockets] of Object.entries(agent.freeSockets)) {
    if (name.startsWith(prefix)) for (const socket of sockets ?? []) socket.destroy();
  }
}

/** The peer closed the connection before answering: on a reused connection, a keep-alive race. */
function closedUnderUs(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** A short reason for the delivery log; never the URL (it may carry a token in its path or query). */
function describe(error: Error): string {
  if (error instanceof AddressNotAllowedError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `connection failed (${code})` : 'connection failed';
}
