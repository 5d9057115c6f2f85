import { Worker } from 'node:worker_threads';
import type { RouteDeclaration } from '../envoy/index.js';

/** Whether this runs from source (bin/suigw.js, tests) rather than compiled. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/**
 * The gateway's route table for `suigw authz` (gateway-routes.ts), built in a worker thread that
 * then exits. Building it loads the whole gateway and streams graph (fastify, the SDK, every
 * capability), which would otherwise stay in authz's heap for the life of the process and
 * lengthen every full GC (docs/benchmarks.md, "The Envoy roles' heap").
 */
export async function routeTableFromWorker(): Promise<RouteDeclaration[]> {
  const worker = startModuleWorker(new URL(`./route-table-worker.${FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url));
  return new Promise((resolve, reject) => {
    let table: RouteDeclaration[] | undefined;
    worker.once('message', (message: RouteDeclaration[]) => {
      table = message;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (table !== undefined) resolve(table);
      else reject(new Error(`the route table worker exited (code ${code}) without a route table`));
    });
  });
}

/**
 * A worker thread running an ES module. A worker does not inherit the loader hooks of its parent,
 * so a TypeScript module is started through tsx the way bin/suigw.js starts the CLI.
 */
function startModuleWorker(module: URL): Worker {
  if (!FROM_SOURCE) return new Worker(module);
  const tsx = import.meta.resolve('tsx/esm/api');
  const start = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(module.href)}); });`;
  return new Worker(start, { eval: true });
}
