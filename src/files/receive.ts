/**
 * One pass over an upload's bytes: counts them against the size limit, hashes them (SHA-256) and
 * keeps the sniff window while they stream into a temporary object. Nothing else is buffered.
 */
import { Readable, finished } from 'node:stream';
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
 * bytes arrived (the source is then paused and let go, not destroyed, so an HTTP request can
 * still be answered), with ClientClosedRequestError when the source ends prematurely, with the
 * AppError the source was destroyed with, with ValidationError `Bad request` when the source
 * failed otherwise (a malformed multipart body), or with the store's own error. A file longer than
 * one batch is hashed on `hashes`' worker threads when given (hasher.ts). When `signal` aborts (the
 * door found the body too slow), rejects with its reason, the source left as for a 413.
 *
 * The source's chunks are taken from its 'data' events and gathered into batches here, not piped
 * into a Writable: a pipe passed each chunk through the Writable's queue and callbacks (several
 * calls and a tick per 64 KiB) only to gather it again (bench/README.md, Decisions). While a batch
 * is being written the next one is gathered; once that one is full too the source is paused until
 * the write ended (backpressure, as a pipe's), so an upload holds at most two batches in memory.
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
  /** Chunks received and not yet handed to the store. */
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  /** Whether a batch is being written (and hashed): the next one waits for it. */
  let writing = false;
  /** Whether this function paused the source (a full batch waiting for the write before it). */
  let paused = false;
  let ended = false;

  return new Promise((resolve, reject) => {
    let settled = false;
    // The end-of-stream watcher below stays: an error the source raises later (its client gone while
    // a 413 is answered) must find a listener, or it would be thrown.
    const detach = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: unknown, fromSource: boolean) => {
      if (settled) return;
      settled = true;
      detach();
      hash?.abort();
      source.pause();
      if (err instanceof AppError) reject(err);
      else if (isClientGone(err)) reject(new ClientClosedRequestError('Client closed request', 'CLIENT_CLOSED'));
      else if (fromSource) reject(new ValidationError('Bad request', 'BAD_REQUEST'));
      else reject(err);
    };

    /** Hashes and writes the gathered chunks as one batch. */
    const flush = (last: boolean): void => {
      const bufs = gathered;
      gathered = [];
      gatheredBytes = 0;
      writing = true;
      let written: Promise<unknown>;
      try {
        hash ??= last || !hashes ? inlineSha256() : hashes.start();
        const room = hash.update(bufs);
        if (bufs.length === 1) written = temp.write(bufs[0]!);
        else written = temp.writev ? temp.writev(bufs) : temp.write(Buffer.concat(bufs));
        if (room) written = Promise.all([written, room]);
      } catch (err) {
        return fail(err, false);
      }
      written.then(onWritten, onWriteFailed);
    };
    const onWritten = () => {
      writing = false;
      if (settled) return;
      if (gatheredBytes >= GATHER_BYTES) return flush(false);
      if (ended) return finish();
      if (paused) {
        paused = false;
        source.resume();
      }
    };
    const onWriteFailed = (err: unknown) => fail(err, false);
    /** The source ended and no write is in flight: the last batch, then the digest. */
    const finish = () => {
      if (gatheredBytes > 0) return flush(true);
      settled = true;
      detach();
      (hash ?? inlineSha256())
        .digest()
        .then((sha256) => resolve({ size, sha256, window: Buffer.concat(head) }), reject);
    };

    function onData(chunk: Buffer): void {
      if (settled) return;
      if (size + chunk.length > maxSize) return fail(fileTooLarge(), false);
      size += chunk.length;
      if (headLength < SNIFF_WINDOW) {
        const part = Buffer.from(chunk.subarray(0, SNIFF_WINDOW - headLength));
        head.push(part);
        headLength += part.length;
      }
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (gatheredBytes < GATHER_BYTES) return;
      if (!writing) flush(false);
      else if (!paused) {
        paused = true;
        source.pause();
      }
    }
    function onEnd(): void {
      ended = true;
      if (!writing && !settled) finish();
    }
    function onAbort(): void {
      fail(signal!.reason, false);
    }

    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    finished(source, { writable: false }, (err) => {
      if (err) fail(err, true);
    });
    source.on('data', onData);
    source.on('end', onEnd);
    // As a pipe does: a source paused before (or never flowing) starts now.
    source.resume();
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
