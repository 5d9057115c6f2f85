import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Secrets never reach the log: the key headers and query parameter are redacted wherever they
 * appear in a logged request (the logged URL is redacted by the HTTP adapter's serializer, which
 * matches the parameter in any spelling).
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

/** `destination` defaults to stdout; tests pass a stream to read what would be logged. */
export function createLogger(level: string, options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings = { level, redact: { paths: REDACT, censor: '[redacted]' }, ...options };
  return destination ? pino(settings, destination) : pino(settings);
}
