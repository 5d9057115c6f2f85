/**
 * The Envoy-facing services' baseline: the least a Node process does to answer them with the
 * usual tools. A plain grpc-js server loading Envoy's protos with @grpc/proto-loader (the same
 * files and options as the test clients) and answering every Check and every ShouldRateLimit
 * with a fixed answer given in its environment (BARE_CHECK_ANSWER, BARE_RATE_LIMIT_ANSWER: JSON
 * in proto-loader's shape; the benchmark passes the real services' answers, so the bytes sent
 * are the same size). No key, database, route table, signature or limiter.
 *
 * `node bin/run-ts.js bench/lib/bare-envoy-services.ts` with both variables set.
 */
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { authorizationService, rateLimitService } from '../../test/support/envoy-protos.js';
import { exitWithParent, serveUntilStopped } from './service-process.js';

exitWithParent();

export interface BareEnvoyServicesReady {
  address: string;
}

function answerOf(name: string): unknown {
  const text = process.env[name];
  if (!text) throw new Error(`${name} must hold the fixed answer (JSON)`);
  return JSON.parse(text, (_key, value: unknown) =>
    // raw_body and other bytes travel as {type: 'Buffer', data}: back to a Buffer.
    value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer' ? Buffer.from((value as { data: number[] }).data) : value,
  );
}

const checkAnswer = answerOf('BARE_CHECK_ANSWER');
const rateLimitAnswer = answerOf('BARE_RATE_LIMIT_ANSWER');
const fixed = (answer: unknown) => (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => callback(null, answer);

const server = new Server();
server.addService(authorizationService().service, { Check: fixed(checkAnswer) });
server.addService(rateLimitService().service, { ShouldRateLimit: fixed(rateLimitAnswer) });
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  const ready: BareEnvoyServicesReady = { address: `127.0.0.1:${port}` };
  serveUntilStopped(ready, () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
});
