import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Secrets never reach the log: the key headers and query parameter are redacted wherever they
 * appear in a logged request.
 */
const REDACT = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.query.api_key',
  'headers["x-api-key"]',
  'headers.authorization',
  'apiKey',
  '*.apiKey',
];

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, ...options });
}
