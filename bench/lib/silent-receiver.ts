import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP endpoint on loopback that accepts every request and never answers: the webhook
 * attacker's receivers (bench/lib/noisy-webhooks.ts), holding each delivery attempt until the
 * gateway's per-attempt timeout gives up on it. Counts the requests it holds and has held.
 */
export interface SilentReceiver {
  url: string;
  /** Requests held open now. */
  open(): number;
  /** Requests received so far. */
  received(): number;
  /** Drops every held request (the attempts fail at once). */
  release(): void;
  close(): Promise<void>;
}

export async function startSilentReceiver(): Promise<SilentReceiver> {
  const held = new Set<ServerResponse>();
  let received = 0;
  const server = createServer((_request, response) => {
    received += 1;
    held.add(response);
    response.once('close', () => held.delete(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => {
    for (const response of held) response.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => held.size,
    received: () => received,
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
