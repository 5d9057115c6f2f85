import type { IncomingMessage } from 'node:http';
import type { WebSocketServer } from 'ws';

/**
 * Headers of a WebSocket upgrade's 101 answer. A completed upgrade is hijacked: `ws` writes the
 * 101 itself and fastify's onSend, where every other answer gets its headers, never runs. The
 * headers are made when `ws` writes the 101 (its `headers` event): the rate and the credit as the
 * admission left them (the connect's price reserved). The route settles the ticket itself.
 */
const upgradeAnswers = new WeakMap<IncomingMessage, () => Record<string, string>>();

/** `headers` is called once, when the 101 of `request` is written (never, if it is not). */
export function onUpgradeAnswer(request: IncomingMessage, headers: () => Record<string, string>): void {
  upgradeAnswers.set(request, headers);
}

/** Installed once, on the root's WebSocket server (@fastify/websocket's). */
export function addUpgradeAnswerHeaders(server: WebSocketServer): void {
  server.on('headers', (lines: string[], request: IncomingMessage) => {
    const headers = upgradeAnswers.get(request);
    if (!headers) return;
    upgradeAnswers.delete(request);
    for (const [name, value] of Object.entries(headers())) lines.push(`${name}: ${value}`);
  });
}
