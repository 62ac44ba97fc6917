// Closing a connection whose request body is still arriving, without losing the answer to it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and how much of it, the rest of a refused body is read after the answer before the connection closes. */
export const LINGER = { ms: 30_000, bytes: 8 * 1024 * 1024, checkMs: 50 };

/**
 * Answers this request on a connection that then closes, reading on what the client still sends of a body the server
 * will not read (nginx's lingering close). Closing at once would leave the client writing into a closed socket: its
 * kernel answers with a reset that can discard the answer before the client reads it (Node's fetch reports EPIPE,
 * "fetch failed", never the 413). So the answer is sent with a FIN, and the rest of the body read and discarded until
 * the client closes, the body ends, LINGER.bytes more have come or LINGER.ms have passed.
 */
export function closeAfterAnswer({ req, res }: { req: IncomingMessage; res: ServerResponse }): void {
  res.setHeader('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (req.complete || typeof socket.destroySoon !== 'function') return;
  // Node's server calls destroySoon once a `Connection: close` answer is written: end the writing side there instead.
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    // Node's parser reads the socket itself and drops the rest of an answered request's body: no 'data' event says
    // how much came, the socket's byte count does.
    const readBefore = socket.bytesRead;
    const started = Date.now();
    // The answer is written out first (as destroySoon does), unless LINGER.ms pass before the client takes it.
    let closing = false;
    const close = () => {
      if (closing) return;
      closing = true;
      if (socket.writableFinished) socket.destroy();
      else socket.once('finish', () => socket.destroy());
    };
    const watch = setInterval(() => {
      if (Date.now() - started >= LINGER.ms) socket.destroy();
      else if (socket.bytesRead - readBefore >= LINGER.bytes) close();
    }, LINGER.checkMs);
    watch.unref();
    socket.once('close', () => clearInterval(watch));
    socket.once('end', close);
    req.once('end', close);
    req.once('error', close);
    req.resume();
  };
}
