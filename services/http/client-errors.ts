import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError, errorBody, type ErrorCode } from '../core/index.js';

/** Node's parser and timeout errors, by `code`, in the table's words. */
function translate(error: NodeJS.ErrnoException): ApiError {
  const as = (code: ErrorCode, message: string) => new ApiError(code, { message, cause: error });
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return as('REQUEST_TIMEOUT', 'The request was not received in time; the connection is closed.');
    case 'HPE_HEADER_OVERFLOW':
      return as('HEADERS_TOO_LARGE', 'The request headers are larger than the server accepts.');
    case 'HPE_INVALID_METHOD':
      // Not 405: that answer must list the path's methods, and no path was parsed.
      return as('BAD_REQUEST', 'Unknown HTTP method.');
    default:
      return as('BAD_REQUEST', 'The request is not valid HTTP.');
  }
}

/**
 * Errors Node raises on a connection before a request exists: a stalled request past its
 * headers or request timeout (408), an unknown method or a malformed request line (400/405),
 * oversized headers (431). They get the same body as every other error, with a fresh request
 * id (there is no request to take one from), and the connection closes.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or an already closed socket has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Node's own rule: answer only while no response has started on this connection (a 401 may
  // already have been sent to a client that then stalled its body); otherwise just close.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const apiError = translate(error);
    const requestId = randomUUID();
    const body = JSON.stringify(errorBody(apiError, requestId));
    socket.write(
      `HTTP/1.1 ${apiError.status} ${apiError.definition.title}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}
