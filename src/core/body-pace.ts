/**
 * The pace an upload's body must keep (FILES_UPLOAD_STALL_TIMEOUT, FILES_UPLOAD_MIN_RATE over each
 * FILES_UPLOAD_MIN_RATE_PERIOD): without it a client holds its upload slot for the whole request
 * timeout by sending a byte every few seconds, and a hundred such sockets hold every slot. A body
 * that stalls or crawls is ended with 408 `Request timeout` (RequestTimeoutError), answered in the
 * door's format; the connection then closes, lingering (REST: rest/files/errors.ts; GraphQL
 * multipart: graphql/uploads/multipart.ts). Every upload of both doors is watched: PUT and POST
 * /upload, tus PATCHes, and GraphQL's uploadFile.
 *
 * Bytes are counted on the connection (`socket.bytesRead`), so every framing counts alike (raw,
 * chunked, multipart, url-encoded), fields before the file part included. Time during which this
 * server holds the body back (the request paused because the disk is busy writing the previous
 * batch, or not read yet) is not the client's: it counts neither as a stall nor against the rate.
 */
import type { IncomingMessage } from 'node:http';
import type { FilesConfig } from '../config';
import { RequestTimeoutError } from './errors';

export type PaceRules = Pick<FilesConfig, 'uploadStallSeconds' | 'uploadMinRate' | 'uploadMinRateSeconds'>;

/** How often the pace is looked at. */
const TICK_MS = 1000;

export interface BodyPace {
  /** Aborts, with a RequestTimeoutError as its reason, when the body stalls or crawls. */
  readonly signal: AbortSignal;
  /** Stops watching (the body ended, or the exchange did). */
  stop(): void;
}

/** Starts watching the body of `raw` from now on. */
export function watchBodyPace(raw: IncomingMessage, rules: PaceRules, now = () => performance.now()): BodyPace {
  const controller = new AbortController();
  const stallMs = rules.uploadStallSeconds * 1000;
  const periodMs = rules.uploadMinRateSeconds * 1000;
  const socket = raw.socket;
  if ((stallMs === 0 && rules.uploadMinRate === 0) || !socket || raw.complete)
    return { signal: controller.signal, stop: () => {} };

  let bytes = socket.bytesRead;
  let last = now();
  let lastByteAt = last;
  /** The current rate period: the client's time in it and the bytes it sent. */
  let periodMsSoFar = 0;
  let periodBytes = 0;

  const tick = () => {
    const at = now();
    const elapsed = at - last;
    last = at;
    const read = socket.bytesRead;
    const arrived = read - bytes;
    bytes = read;
    if (raw.complete) return stop();
    if (arrived > 0 || heldBack(raw)) {
      lastByteAt = at;
      if (heldBack(raw)) return;
    }
    if (stallMs > 0 && at - lastByteAt >= stallMs) return end('UPLOAD_STALLED');
    periodMsSoFar += elapsed;
    periodBytes += arrived;
    if (rules.uploadMinRate > 0 && periodMsSoFar >= periodMs) {
      if ((periodBytes * 1000) / periodMsSoFar < rules.uploadMinRate) return end('UPLOAD_TOO_SLOW');
      periodMsSoFar = 0;
      periodBytes = 0;
    }
  };
  const timer = setInterval(tick, Math.min(TICK_MS, stallMs || TICK_MS, periodMs));
  timer.unref();
  const stop = () => clearInterval(timer);
  const end = (reason: string) => {
    stop();
    controller.abort(new RequestTimeoutError('Request timeout', reason));
  };
  raw.once('end', stop).once('close', stop);
  return { signal: controller.signal, stop };
}

/** Whether this server, not the client, holds the body back: not reading it, or not keeping up. */
function heldBack(raw: IncomingMessage): boolean {
  return raw.readableFlowing !== true || raw.readableLength > 0;
}
