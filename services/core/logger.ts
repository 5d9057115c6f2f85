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

const asyncDestinations = new WeakMap<Logger, { flushSync(): void }>();

/**
 * `destination` defaults to stdout, written asynchronously (pino's non-blocking destination): a
 * log line never makes a request wait for the write. `flushLogger` writes what is still
 * buffered before the process exits. Tests pass a stream to read what would be logged.
 */
export function createLogger(level: string, options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings = { level, redact: { paths: REDACT, censor: '[redacted]' }, ...options };
  if (destination) return pino(settings, destination);
  const stdout = pino.destination({ dest: 1, sync: false });
  const logger = pino(settings, stdout);
  asyncDestinations.set(logger, stdout);
  return logger;
}

/** Writes out what an asynchronous destination still holds; call it right before exiting. */
export function flushLogger(logger: Logger): void {
  try {
    asyncDestinations.get(logger)?.flushSync();
  } catch {
    // Nothing was ready to write (the destination had not opened yet): nothing is lost.
  }
}
