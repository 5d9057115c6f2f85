import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';

/**
 * A request's logger, made when the request first logs: fastify makes every request a pino
 * child with the request id bound, and pino serializes the bindings right away (~1.5 µs a
 * request), while request logging is off by default and nearly every request logs nothing
 * (docs/benchmarks.md, "HTTP layer"). What it writes is what the child would have written.
 */
class DeferredRequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #made: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): FastifyBaseLogger {
    return (this.#made ??= this.#parent.child(this.#bindings, this.#options));
  }

  /** The parent's level until a child exists, unless the route sets its own (`logLevel`). */
  get level(): string {
    return this.#made?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  // Methods on the prototype, not closures per instance: nothing is made per request but the
  // object itself. pino's level methods are overloaded; the arguments pass through unchanged.
  fatal(...args: unknown[]): void {
    write(this.#logger, 'fatal', args);
  }

  error(...args: unknown[]): void {
    write(this.#logger, 'error', args);
  }

  warn(...args: unknown[]): void {
    write(this.#logger, 'warn', args);
  }

  info(...args: unknown[]): void {
    write(this.#logger, 'info', args);
  }

  debug(...args: unknown[]): void {
    write(this.#logger, 'debug', args);
  }

  trace(...args: unknown[]): void {
    write(this.#logger, 'trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }
}

type LevelMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

function write(logger: FastifyBaseLogger, level: LevelMethod, args: unknown[]): void {
  Reflect.apply(logger[level], logger, args);
}

/** fastify's `childLoggerFactory`: a deferred child for each request. */
export function deferredChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new DeferredRequestLogger(logger, bindings, options);
}
