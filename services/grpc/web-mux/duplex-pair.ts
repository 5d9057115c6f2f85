import { Duplex } from 'node:stream';

/** Two connected in-memory duplex streams: what one writes, the other reads. */
export function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const make = (peer: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        peer().push(chunk);
        callback();
      },
      final(callback) {
        peer().push(null);
        callback();
      },
      destroy(error, callback) {
        const other = peer();
        if (!other.destroyed) other.destroy();
        callback(error);
      },
    });
  ends.push(make(() => ends[1]!), make(() => ends[0]!));
  return [ends[0]!, ends[1]!];
}
