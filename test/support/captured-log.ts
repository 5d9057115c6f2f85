import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../services/core/index.js';

/** A real pino logger (the process's settings, redaction included) whose lines land, parsed, in `lines`. */
export function capturedLogger(level = 'info'): { lines: Record<string, unknown>[]; logger: Logger } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger(level, {}, sink) };
}

/** A line without what changes from run to run (time, pid, hostname). */
export function loggedFields(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _time, pid: _pid, hostname: _hostname, ...fields } = line;
  return fields;
}
