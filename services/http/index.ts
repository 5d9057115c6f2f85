export { buildHttpApp, registeredRoutes, type HttpAppOptions } from './app.js';
export type { HealthCheck } from './health.js';
export { networkBaseUrl, networkRewriter } from './networks.js';
export { sendError, toApiError } from './error-handler.js';
export { startMetricsServer, type MetricsServer, type MetricsSource } from './metrics-server.js';
