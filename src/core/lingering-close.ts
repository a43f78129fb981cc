import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and how many bytes, a refused body is still read after the answer (see below). */
export const LINGER_MS = 10_000;
export const LINGER_BYTES = 256 * 1024 * 1024;

/**
 * A lingering close, as HTTP servers have long done it: when a request is refused while its client
 * is still sending the body (the disk filled up mid-upload), the answer goes out with
 * `Connection: close`, then the server stops writing (FIN) but keeps reading and dropping what the
 * client still sends, until the client is done, LINGER_BYTES or LINGER_MS. Closing at once would
 * leave unread bytes in the socket, so the kernel answers them with a reset, and a reset makes the
 * client's kernel discard the answer it had not read yet: the client saw EPIPE instead of the 507.
 *
 * Node closes a `Connection: close` socket through `socket.destroySoon()` once the response is
 * written; this replaces that call on this one socket.
 */
export function lingerAfterAnswer(req: IncomingMessage, ms = LINGER_MS, bytes = LINGER_BYTES): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (!socket || socket.destroyed) return;
  socket.destroySoon = () => {
    let seen = 0;
    const stop = () => {
      clearTimeout(timer);
      req.off('data', drop);
      socket.destroy();
    };
    const drop = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > bytes) stop();
    };
    const timer = setTimeout(stop, ms);
    timer.unref();
    socket.end();
    socket.once('end', stop).once('close', () => clearTimeout(timer));
    // The route stopped reading the body when it failed: read it again, into nothing.
    req.on('data', drop);
    req.resume();
    socket.resume();
  };
}
