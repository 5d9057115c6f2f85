import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { localProof, ProverError, type ProofRequest } from '../../services/zklogin/index.js';

/**
 * The local prover behind Mysten's prover service API (`POST /v1`, JSON in and out), for tests of
 * the HTTP client: `fail` answers 500 as a crashed prover would, `garbage` a 200 that is no proof;
 * `hold` keeps requests in flight.
 */
export interface TestProverServer {
  url: string;
  requests(): number;
  setMode(mode: 'ok' | 'fail' | 'garbage'): void;
  stop(): Promise<void>;
}

export async function startTestProverServer(options: { hold?: () => Promise<void> } = {}): Promise<TestProverServer> {
  let mode: 'ok' | 'fail' | 'garbage' = 'ok';
  let requests = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests += 1;
      const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.method !== 'POST' || request.url !== '/v1') return answer(404, { error: 'not found' });
      if (mode === 'fail') return answer(500, { error: 'Internal error' });
      if (mode === 'garbage') return answer(200, { proofPoints: { a: ['1'] } });
      void (async () => {
        try {
          const proof = localProof(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ProofRequest);
          if (options.hold) await options.hold();
          answer(200, proof);
        } catch (error) {
          answer(400, { error: error instanceof ProverError ? error.message : 'bad request' });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    setMode(next) { mode = next; },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
