export { buildApp, type AppDeps, type BuildAppOptions } from './app.js';
export type { App, RouteAuth } from './types.js';
export type { HealthCheck } from './health.js';
export { networkBaseUrl } from './networks.js';
export { sendError, toApiError } from './error-handler.js';
