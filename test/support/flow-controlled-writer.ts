import { once } from 'node:events';
import type { ServerHttp2Stream } from 'node:http2';

/**
 * A server that streams as fast as HTTP/2 flow control lets it, for backpressure tests: how far it
 * got, whether it is waiting for 'drain', whether it finished. "Stuck" is decided by event-loop
 * turns, not by a clock, so a slow machine cannot make a test fail.
 */
export class FlowControlledWriter {
  written = 0;
  waits = false;
  done = false;
  #signal: () => void = () => undefined;

  /** Writes `frame` until `totalBytes` went out, waiting for 'drain' whenever the stream says so. */
  stream(stream: ServerHttp2Stream, frame: Buffer, totalBytes: number): void {
    void (async () => {
      while (this.written < totalBytes) {
        this.written += frame.length;
        if (stream.write(frame)) continue;
        this.waits = true;
        this.#signal();
        await once(stream, 'drain');
        this.waits = false;
      }
      this.done = true;
      this.#signal();
      stream.end();
    })();
  }

  /**
   * The bytes written once the writer has waited for 'drain' through `turns` turns of the event
   * loop (each polls the sockets: a reader that reads on frees it within a few); undefined when
   * it finished first.
   */
  async stuckAt(turns = 1_000): Promise<number | undefined> {
    while (!this.done) {
      if (!this.waits) await new Promise<void>((resolve) => (this.#signal = resolve));
      for (let turn = 0; turn < turns && this.waits; turn++) await new Promise((resolve) => setImmediate(resolve));
      if (this.waits) return this.written;
    }
    return undefined;
  }
}
