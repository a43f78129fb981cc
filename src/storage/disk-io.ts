/**
 * The file-system calls the disk store makes on an object's descriptors, all asynchronous: each runs
 * on libuv's thread pool and the event loop only gets its callback, so a disk that stalls (NFS, a
 * full device queue, writeback throttling) holds up the requests that wait for it and no other.
 *
 * The store takes them as one object so a test can put a fault-injection double at this boundary
 * (a write that hangs, a log of fsyncs in their order); production uses `nodeDiskIo`, a thin
 * promise wrapper over node:fs's callback API (no FileHandle per call).
 */
import fs from 'node:fs';

export interface DiskIo {
  open(path: string, flags: string): Promise<number>;
  close(fd: number): Promise<void>;
  /** One positional write; resolves with the bytes the kernel took. */
  write(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number>;
  /** One positional vectored write; resolves with the bytes the kernel took. */
  writev(fd: number, bufs: Buffer[], position: number): Promise<number>;
  read(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number>;
  fsync(fd: number): Promise<void>;
  fdatasync(fd: number): Promise<void>;
}

const done =
  <T>(resolve: (v: T) => void, reject: (e: unknown) => void) =>
  (err: NodeJS.ErrnoException | null, v: T): void =>
    err ? reject(err) : resolve(v);

export const nodeDiskIo: DiskIo = {
  open: (p, flags) => new Promise((resolve, reject) => fs.open(p, flags, done(resolve, reject))),
  close: (fd) => new Promise((resolve, reject) => fs.close(fd, (err) => (err ? reject(err) : resolve()))),
  write: (fd, buf, offset, length, position) =>
    new Promise((resolve, reject) => fs.write(fd, buf, offset, length, position, done(resolve, reject))),
  writev: (fd, bufs, position) =>
    new Promise((resolve, reject) => fs.writev(fd, bufs, position, done(resolve, reject))),
  read: (fd, buf, offset, length, position) =>
    new Promise((resolve, reject) => fs.read(fd, buf, offset, length, position, done(resolve, reject))),
  fsync: (fd) => new Promise((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve()))),
  fdatasync: (fd) => new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve()))),
};

/**
 * Writes every byte of `chunks` at `position`, going on after a short write with the bytes the
 * kernel did not take; `written` is told of each write's count as it lands.
 */
export async function writevAll(
  io: DiskIo,
  fd: number,
  chunks: Buffer[],
  position: number,
  written: (n: number) => void,
): Promise<void> {
  let rest = chunks;
  while (rest.length > 0) {
    let n = await io.writev(fd, rest, position);
    position += n;
    written(n);
    const next: Buffer[] = [];
    for (const c of rest) {
      if (n >= c.length) n -= c.length;
      else {
        next.push(n > 0 ? c.subarray(n) : c);
        n = 0;
      }
    }
    rest = next;
  }
}

/** Hands a file's written bytes to the disk in the background: see writeBehind. */
export interface WriteBehind {
  /** `n` more bytes were written; starts a flush once `every` bytes came since the last one. */
  wrote(n: number): void;
  /** Resolves once no flush is in flight; rejects with the first flush's failure, if any. */
  settled(): Promise<void>;
}

/**
 * Write-behind for a file being written: every `every` bytes an fdatasync starts in the background
 * (at most one in flight) while the next bytes arrive, so the fsync that makes the file durable only
 * waits for the tail instead of writing back the whole file at the end.
 */
export function writeBehind(io: DiskIo, fd: number, every: number): WriteBehind {
  let unflushed = 0;
  let flushing: Promise<void> | undefined;
  let failure: { err: unknown } | undefined;
  return {
    wrote(n) {
      unflushed += n;
      if (flushing || unflushed < every) return;
      unflushed = 0;
      flushing = io.fdatasync(fd).then(
        () => void (flushing = undefined),
        (err: unknown) => {
          failure ??= { err };
          flushing = undefined;
        },
      );
    },
    async settled() {
      await flushing;
      if (failure) throw failure.err;
    },
  };
}
