import type { Readable, Writable } from 'node:stream';
import type { RequestMessageLimit } from './request-message-limit.js';

/**
 * Sends the caller's request body to the upstream stream, ending it when the caller's ends.
 *
 * Not `pipe`: a piped unary request goes upstream as a DATA frame and then, one write later, an
 * empty DATA frame carrying END_STREAM (pipe's `end()` waits for the first write to complete),
 * so the node reads and handles two frames where a direct client sends one. Here chunks that
 * arrive together are held until the end of the event-loop turn; when the body has ended by
 * then (a unary call: message and end arrive in one read) it goes as `end(body)`, which Node
 * sends as one DATA frame with END_STREAM, in the same write as the request headers. A
 * streaming body is written as it comes, one write per turn, with backpressure.
 *
 * A message whose prefix declares more than `limit` allows is not forwarded: forwarding stops
 * before any of it goes out, and `onOversized` gets its length (the call ends there).
 *
 * Returns a function that stops forwarding (the call failed before the upstream answered).
 */
export function forwardRequestBody(
  from: Readable, to: Writable, limit: RequestMessageLimit, onOversized: (length: number) => void,
): () => void {
  // A body that ended before forwarding began (an empty one: the caller's END_STREAM came while
  // the call was authenticated and admitted) has emitted 'end' already: the upstream must still
  // see it end, or it waits for a request that never comes and the call times out as if the node
  // were down (and counts against the network's breaker).
  if (from.readableEnded) {
    to.end();
    return () => undefined;
  }
  let held: Buffer[] = [];
  let flush: NodeJS.Immediate | undefined;
  let stopped = false;

  const take = (): Buffer | undefined => {
    if (held.length === 0) return undefined;
    const body = held.length === 1 ? held[0]! : Buffer.concat(held);
    held = [];
    return body;
  };
  const onDrain = () => from.resume();
  const write = () => {
    flush = undefined;
    const body = take();
    if (body && !to.write(body)) {
      from.pause();
      to.once('drain', onDrain);
    }
  };
  const onData = (chunk: Buffer) => {
    const oversized = limit.oversized(chunk);
    if (oversized !== undefined) {
      stop();
      onOversized(oversized);
      return;
    }
    held.push(chunk);
    flush ??= setImmediate(write);
  };
  const onEnd = () => {
    clearImmediate(flush);
    flush = undefined;
    const body = take();
    stop();
    if (body) to.end(body);
    else to.end();
  };
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearImmediate(flush);
    held = [];
    from.off('data', onData);
    from.off('end', onEnd);
    to.off('drain', onDrain);
    to.off('close', stop);
  };
  from.on('data', onData);
  from.once('end', onEnd);
  // The upstream ended the call (or reset it): nothing more to send.
  to.once('close', stop);
  return stop;
}
