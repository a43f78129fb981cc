/**
 * One pass over an upload's bytes: counts them against the size limit, hashes them (SHA-256) and
 * keeps the sniff window while they stream into a temporary object. Nothing else is buffered.
 */
import crypto from 'node:crypto';
import { Readable, Writable, finished } from 'node:stream';
import { AppError, ClientClosedRequestError, PayloadTooLargeError, ValidationError } from '../core/errors';
import type { TempObject } from '../storage';
import { SNIFF_WINDOW } from './mime';

/**
 * Chunks arriving while a store write is in flight are gathered up to this many bytes, then
 * written as one batch (a vectored write on disk, no copy).
 */
const SINK_HIGH_WATER_MARK = 1024 * 1024;

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
 * failed otherwise (a malformed multipart body), or with the store's own error.
 */
export function streamInto(source: Readable, temp: TempObject, maxSize: number): Promise<StreamDigest> {
  const hash = crypto.createHash('sha256');
  const head: Buffer[] = [];
  let headLength = 0;
  let size = 0;

  /** Counts, hashes and keeps the sniff window of one chunk; false when over the size limit. */
  const account = (buf: Buffer): boolean => {
    if (size + buf.length > maxSize) return false;
    size += buf.length;
    hash.update(buf);
    if (headLength < SNIFF_WINDOW) {
      const part = Buffer.from(buf.subarray(0, SNIFF_WINDOW - headLength));
      head.push(part);
      headLength += part.length;
    }
    return true;
  };
  const done = (cb: (err?: Error | null) => void) => [() => cb(), cb] as const;

  const take = (buf: Buffer, cb: (err?: Error | null) => void): void => {
    if (!account(buf)) return cb(fileTooLarge());
    temp.write(buf).then(...done(cb));
  };

  const takeMany = (bufs: Buffer[], cb: (err?: Error | null) => void): void => {
    for (const b of bufs) if (!account(b)) return cb(fileTooLarge());
    (temp.writev ? temp.writev(bufs) : temp.write(Buffer.concat(bufs))).then(...done(cb));
  };

  const sink = new Writable({
    highWaterMark: SINK_HIGH_WATER_MARK,
    write(chunk: Buffer, _enc, cb) {
      take(chunk, cb);
    },
    writev(chunks, cb) {
      if (chunks.length === 1) take(chunks[0]!.chunk as Buffer, cb);
      else takeMany(chunks.map((c) => c.chunk as Buffer), cb);
    },
  });

  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown, fromSource: boolean) => {
      if (settled) return;
      settled = true;
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
      resolve({ size, sha256: hash.digest('hex'), window: Buffer.concat(head) });
    });
    finished(source, { writable: false }, (err) => {
      if (err) fail(err, true);
    });
    source.pipe(sink);
  });
}

/** Errors a request stream raises when its client goes away before the body ended. */
function isClientGone(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'EPIPE' || e?.message === 'aborted';
}
