/**
 * One pass over an upload's bytes: counts them against the size limit, hashes them (SHA-256) and
 * keeps the sniff window while they stream into a temporary object. Nothing else is buffered.
 */
import { Readable, Writable, finished } from 'node:stream';
import { AppError, ClientClosedRequestError, PayloadTooLargeError, ValidationError } from '../core/errors';
import type { TempObject } from '../storage';
import { inlineSha256, type HashPool, type Sha256 } from './hasher';
import { SNIFF_WINDOW } from './mime';

/**
 * Bytes gathered before they go to the store as one batch (a vectored write on disk, no copy).
 * Each store write is a round trip through libuv's thread pool, and on a small machine those
 * round trips (a wake-up and two context switches each) cost more CPU than the copy itself:
 * the 64 KiB chunks a socket delivers are written 256 KiB at a time (4 writes per MiB, where
 * writing each batch as soon as the previous write finished took more writes and more CPU).
 */
const GATHER_BYTES = 256 * 1024;

export interface StreamDigest {
  size: number;
  sha256: string;
  /** The first SNIFF_WINDOW bytes (fewer for a shorter file). */
  window: Buffer;
}

export function fileTooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError('File too large', 'FILE_TOO_LARGE');
}

/**
 * Streams `source` into `temp`. Rejects with PayloadTooLargeError as soon as more than `maxSize`
 * bytes arrived (the source is then paused and unpiped, not destroyed, so an HTTP request can
 * still be answered), with ClientClosedRequestError when the source ends prematurely, with the
 * AppError the source was destroyed with, with ValidationError `Bad request` when the source
 * failed otherwise (a malformed multipart body), or with the store's own error. A file longer than
 * one batch is hashed on `hashes`' worker threads when given (hasher.ts). When `signal` aborts (the
 * door found the body too slow), rejects with its reason, the source left as for a 413.
 */
export function streamInto(
  source: Readable,
  temp: TempObject,
  maxSize: number,
  hashes?: HashPool,
  signal?: AbortSignal,
): Promise<StreamDigest> {
  // Started with the first batch written: on a worker (hasher.ts), or inline for a file that ends
  // within that batch (a round trip to a worker would cost more than hashing it).
  let hash: Sha256 | undefined;
  const head: Buffer[] = [];
  let headLength = 0;
  let size = 0;

  /** Counts and keeps the sniff window of one chunk (hashed by batch, in flush); false when over the size limit. */
  const account = (buf: Buffer): boolean => {
    if (size + buf.length > maxSize) return false;
    size += buf.length;
    if (headLength < SNIFF_WINDOW) {
      const part = Buffer.from(buf.subarray(0, SNIFF_WINDOW - headLength));
      head.push(part);
      headLength += part.length;
    }
    return true;
  };
  const done = (cb: (err?: Error | null) => void) => [() => cb(), cb] as const;

  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  const flush = (cb: (err?: Error | null) => void, last: boolean): void => {
    const bufs = gathered;
    gathered = [];
    gatheredBytes = 0;
    if (bufs.length === 0) return cb();
    hash ??= last || !hashes ? inlineSha256() : hashes.start();
    let room: Promise<void> | undefined;
    try {
      room = hash.update(bufs);
    } catch (err) {
      return cb(err as Error);
    }
    let written: Promise<void>;
    if (bufs.length === 1) written = temp.write(bufs[0]!);
    else written = temp.writev ? temp.writev(bufs) : temp.write(Buffer.concat(bufs));
    (room ? Promise.all([written, room]) : written).then(...done(cb));
  };

  // One chunk at a time (no writev): a chunk is accepted at once until a batch is full, and the
  // stream waits for the batch's write before it hands over the next chunk (backpressure).
  const sink = new Writable({
    // While a batch is being written, the next one may arrive (then the source is paused).
    highWaterMark: GATHER_BYTES,
    write(chunk: Buffer, _enc, cb) {
      if (!account(chunk)) return cb(fileTooLarge());
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (gatheredBytes < GATHER_BYTES) return cb();
      flush(cb, false);
    },
    final(cb) {
      flush(cb, true);
    },
  });

  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown, fromSource: boolean) => {
      if (settled) return;
      settled = true;
      hash?.abort();
      source.unpipe(sink);
      source.pause();
      sink.destroy();
      if (err instanceof AppError) reject(err);
      else if (isClientGone(err)) reject(new ClientClosedRequestError('Client closed request', 'CLIENT_CLOSED'));
      else if (fromSource) reject(new ValidationError('Bad request', 'BAD_REQUEST'));
      else reject(err);
    };
    sink.on('error', (err) => fail(err, false));
    sink.on('finish', () => {
      if (settled) return;
      settled = true;
      (hash ?? inlineSha256())
        .digest()
        .then((sha256) => resolve({ size, sha256, window: Buffer.concat(head) }), reject);
    });
    finished(source, { writable: false }, (err) => {
      if (err) fail(err, true);
    });
    if (signal) {
      const onAbort = () => fail(signal.reason, false);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const forget = () => signal.removeEventListener('abort', onAbort);
      sink.once('finish', forget).once('close', forget);
    }
    source.pipe(sink);
  });
}

/** Errors a request stream raises when its client goes away before the body ended. */
function isClientGone(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  return (
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    code === 'ECONNRESET' ||
    code === 'ECONNABORTED' ||
    code === 'EPIPE' ||
    e?.message === 'aborted'
  );
}
