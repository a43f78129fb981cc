/**
 * Refusals made before an upload's body is read (docs/files-api.md §3: origin check, API key,
 * 429, 413 by Content-Length, a body with no fields, an unknown method): the client is usually
 * still sending, and an answer followed by a closed socket reaches curl, Go and browsers as EPIPE
 * or a reset instead of the status. So a body up to 1 MiB is read and discarded first (for at most
 * DRAIN_MS: a body sent a byte at a time must not hold the answer back) and the connection stays
 * usable; a larger or slower one is refused at once with `Connection: close`, as is a body the
 * client holds back until `100 Continue` (it will not send it now); errors.ts then lingers.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';

/** The largest unread body drained before a refusal is sent. */
export const DRAIN_LIMIT = 1024 * 1024;
/** How long a refusal waits for the end of the body it drains. */
export const DRAIN_MS = 5000;

/** Requests whose body a route started to read (it is then the route's, not ours to drain). */
const reading = new WeakSet<IncomingMessage>();

export function markBodyRead(request: FastifyRequest): void {
  reading.add(request.raw);
}

/** Whether a route started to read this request's body (and it has not all arrived). */
export function isBeingRead(request: FastifyRequest): boolean {
  return reading.has(request.raw) && !request.raw.complete;
}

/**
 * What a refusal must do about the request's body first: nothing (none left, or a route reads
 * it), drain it, or close the connection after answering.
 */
export function unreadBody(request: FastifyRequest, awaitsContinue: boolean): 'none' | 'drain' | 'close' {
  const raw = request.raw;
  if (raw.complete) return 'none';
  if (reading.has(raw) || awaitsContinue || raw.readableEnded || raw.destroyed) return 'close';
  const declared = raw.headers['content-length'];
  // Chunked bodies have no declared length: drained up to the limit.
  if (declared !== undefined && !(Number(declared) <= DRAIN_LIMIT)) return 'close';
  return 'drain';
}

/** Reads and discards the body; true when it ended within DRAIN_LIMIT bytes and DRAIN_MS, false otherwise. */
export function drainBody(raw: IncomingMessage, ms = DRAIN_MS): Promise<boolean> {
  reading.add(raw);
  return new Promise((resolve) => {
    let seen = 0;
    const timer = setTimeout(() => done(false), ms);
    const done = (ended: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
      if (!ended) raw.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(raw.complete);
    raw.on('data', onData).once('end', onEnd).once('close', onClose).once('error', onClose);
    raw.resume();
  });
}
