import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers the next request: a status (with headers, a body) or no answer at all. */
export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A receiver's handle: what it got, and how it answers next. */
export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  answer(...answers: ScriptedAnswer[]): void;
  /** Answers every request held by a 'hang' so far (200 unless told). */
  answerHanging(status?: number): void;
  close(): Promise<void>;
}

/**
 * A real HTTP endpoint on loopback for webhook tests: records every request and answers from a
 * script (200 once the script is used up).
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const script: ScriptedAnswer[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const next = script.shift() ?? { status: 200 };
      if (next === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(next.status, next.headers ?? {});
      response.end(next.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (...answers) => script.push(...answers),
    answerHanging(status = 200) {
      for (const response of hanging) response.writeHead(status).end();
      hanging.clear();
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
