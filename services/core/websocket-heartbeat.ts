import type { WebSocket } from 'ws';
import type { Clock } from './clock.js';

/**
 * How often an open WebSocket (or SSE response) proves its peer is alive. A client whose machine or
 * network went away without closing leaves a connection that nothing else ends while it is quiet:
 * it would hold what it holds (a Warp stream, subscriptions and their filter budget) and be
 * charged for it for good, and idle intermediaries drop quiet live ones.
 */
export const HEARTBEAT_MS = 30_000;
/** How often the clock is read for the next heartbeat. */
const HEARTBEAT_TICK_MS = 1_000;

/**
 * One heartbeat of a WebSocket: a ping, or the end of the socket when the previous ping went
 * unanswered (every client answers pings; `terminate`, since a gone peer would never complete a
 * closing handshake). The socket's `close` event follows, which frees what it held.
 */
export function webSocketHeartbeat(socket: WebSocket): () => void {
  let answered = true;
  socket.on('pong', () => {
    answered = true;
  });
  return () => {
    if (socket.readyState !== socket.OPEN) return;
    if (!answered) {
      socket.terminate();
      return;
    }
    answered = false;
    socket.ping();
  };
}

/** Whether a heartbeat is due on the clock (HEARTBEAT_MS since the last one; true records it). */
export function heartbeatSchedule(clock: Clock): () => boolean {
  let last = clock.now();
  return () => {
    if (clock.now() - last < HEARTBEAT_MS) return false;
    last = clock.now();
    return true;
  };
}

/**
 * Calls `beat` every HEARTBEAT_MS on the clock (read every second, so tests move a ManualClock);
 * returns the function that stops it.
 */
export function everyHeartbeat(clock: Clock, beat: () => void): () => void {
  const due = heartbeatSchedule(clock);
  const timer = setInterval(() => {
    if (due()) beat();
  }, HEARTBEAT_TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
