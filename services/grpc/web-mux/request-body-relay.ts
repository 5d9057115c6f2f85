import type { Readable, Writable } from 'node:stream';
import type { BodyDecoder } from './grpc-web-framing.js';

/**
 * Sends a gRPC-Web request body into its translated call as it arrives, at the pace the call
 * takes it, so the mux never holds a body: the call authenticates on its headers (the same
 * pipeline as a native call's) and a refusal closes it before the body is read. Each chunk
 * waits for the next, or the end: the last goes with END_STREAM, so a unary request stays one
 * DATA frame. Stops when the call closes; what the client still sends is then read and dropped.
 */
export function relayRequestBody(from: Readable, to: Writable, decoder: BodyDecoder): void {
  let held: Buffer | undefined;
  const onDrain = () => from.resume();
  const onData = (chunk: Buffer) => {
    const previous = held;
    held = decoder.push(chunk);
    if (previous && previous.length > 0 && !to.write(previous)) {
      from.pause();
      to.once('drain', onDrain);
    }
  };
  const onEnd = () => {
    const last = Buffer.concat([held ?? Buffer.alloc(0), decoder.end()]);
    stop();
    to.end(last);
  };
  const stop = () => {
    held = undefined;
    from.off('data', onData);
    from.off('end', onEnd);
    to.off('drain', onDrain);
    to.off('close', onClose);
  };
  const onClose = () => {
    stop();
    from.resume();
  };
  from.on('data', onData);
  from.once('end', onEnd);
  to.once('close', onClose);
}
