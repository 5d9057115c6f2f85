export { buildHttpApp, registeredRoutes, type HttpAppOptions } from './app.js';
export type { HealthCheck } from './health.js';
export { networkBaseUrl } from './networks.js';
export { sendError, toApiError } from './error-handler.js';
