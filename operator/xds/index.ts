export { AdsServer, type AdsServerOptions } from './ads-server.js';
export type { XdsAck, XdsNack } from './ads-stream.js';
export { HTTP_FILTER_CHAIN, type HttpFilterModule } from './http-filters.js';
export { RATE_LIMIT_DESCRIPTORS, RATELIMIT_DOMAIN } from './rate-limit-descriptors.js';
export type { EnvoyResource, EnvoySnapshot } from './snapshot.js';
export { DEFAULT_TRANSLATE_OPTIONS, translateToEnvoy, type TranslateOptions } from './translate-envoy.js';
export { TYPE_URL } from './type-urls.js';
