import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bindPort } from './port-in-use.js';

/** Where the exposition comes from: one process's `Metrics`, or the sum over a role's workers. */
export interface MetricsSource {
  exposition(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsServer {
  /** `http://host:port/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * `/metrics` on a listener of its own, never on the public gateway port: scrapers reach it on
 * the pod network (a ServiceMonitor in Kubernetes), the public never does. A plain GET answers;
 * anything else is 404/405.
 */
export async function startMetricsServer(metrics: MetricsSource, options: { host: string; port: number }): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? undefined : body),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  // A scraper holds one keep-alive connection; nothing else should linger.
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await bindPort('SUIGW_METRICS_PORT', options.port, () => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  }));
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
