// Refusals Node's HTTP parser makes before koa sees a request (headers over 16 KiB, a request too slow to arrive, bytes
// that are not HTTP) and plain HTTP sent to the TLS port: each is answered in the spec's error format, {code, message},
// instead of Node's empty-bodied default or a reset, so a client learns what it did wrong.
import type { EventEmitter } from 'node:events';
import { STATUS_CODES } from 'node:http';
import type { Server as TlsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Answers and closes: a client still sending (a dripping one) would otherwise keep the connection half open. */
function answerAndClose(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ code, message });
  const answer = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  socket.end(answer, () => socket.destroy());
}

const PARSER_REFUSALS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'The request headers are larger than 16 KiB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'The request did not arrive in time'],
};

/** Answers the parser's refusals with a JSON body (Node's own 431/408/400 have none). */
export function answerClientErrors(server: EventEmitter): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset, or one whose answer already started, has no one to tell.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, code, message] = PARSER_REFUSALS[error.code ?? ''] ?? [400, 'BAD_REQUEST', 'The request is not valid HTTP'];
    answerAndClose(socket, status, code, message);
  });
}

/** A TLS connection starts with a handshake record; anything else on the TLS port is a plain-text client. */
const TLS_HANDSHAKE = 0x16;

/**
 * Looks at a connection's first byte before TLS takes it: a TLS handshake goes on to the server's own TLS handling;
 * plain HTTP is told, in plain HTTP, to use https. A connection that sends nothing is dropped after `timeoutMs`.
 */
export function refusePlainHttp(server: TlsServer, timeoutMs: number): void {
  const tlsListeners = server.listeners('connection') as ((socket: Duplex) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      if (chunk[0] === TLS_HANDSHAKE) {
        // The TLS socket reads what is unshifted here before it reads from the connection.
        socket.unshift(chunk);
        for (const listener of tlsListeners) listener.call(server, socket);
        return;
      }
      answerAndClose(socket, 400, 'PLAIN_HTTP_ON_TLS_PORT', 'This port speaks HTTPS: send the request with https://');
    });
    socket.on('error', () => socket.destroy());
  });
}
