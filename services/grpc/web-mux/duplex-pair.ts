import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

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

/**
 * A duplex over `socket` that first yields `head` (bytes already read while classifying the
 * connection). Node's HTTP/2 reads sockets natively and would skip bytes put back with
 * `unshift`, so HTTP/2 connections are handed over through this wrapper instead.
 */
export function replayingSocket(socket: Socket, head: Buffer): Duplex {
  const wrapper = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  wrapper.push(head);
  socket.on('data', (chunk: Buffer) => {
    if (!wrapper.push(chunk)) socket.pause();
  });
  socket.once('end', () => wrapper.push(null));
  socket.once('close', () => wrapper.destroy());
  return wrapper;
}
