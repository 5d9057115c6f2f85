export * from './errors.js';
export * from './clock.js';
export * from './config.js';
export * from './logger.js';
export * from './schemas.js';
export * from './metrics.js';
export * from './query-key.js';
export * from './secrets.js';
