/**
 * Local-disk byte store under `<DATA_DIR>/files`:
 *   objects/<id[0:2]>/<id>       objects, named by a random internal id, immutable once committed
 *   tmp/<host>-<pid>-<r>.journal the ids of the uploads in flight of one process (upload-journal.ts):
 *                                after a crash, recovery removes the objects of dead uploads
 * An upload writes its object in place: the object's directory entry is made durable (fsync of
 * the directory, through a descriptor kept open per object directory) while the bytes arrive, so
 * a commit only waits for the fsync of the file itself — the same one write-and-fsync a plain
 * server does, no rename and no directory fsync after the last byte. Metadata refers to an object
 * only after its commit. User-supplied names never reach a path. Earlier versions marked each
 * upload with an empty `tmp/<host>-<pid>-<id>.part` file; recovery still reads those.
 *
 * No file-system call here runs on the event loop's thread: opens, reads, writes, fsyncs and closes
 * go through libuv's thread pool (disk-io.ts), so a disk that stalls delays the requests waiting for
 * it and nothing else (/healthz, other downloads, the API keep answering). That costs each call a
 * round trip through the pool; bench/README.md measures what it costs uploads and downloads.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerResponse } from 'node:http';
import { Readable, type Writable } from 'node:stream';
import { isNoSpaceError } from '../core/errors';
import { isAlive } from '../core/process';
import { ObjectCache, ObjectCacheStats } from './object-cache';
import { DiskIo, nodeDiskIo, writeBehind, writevAll } from './disk-io';
import { directSocketFd, sendFileRange, sendfileModule, type SendfileModule } from './sendfile';
import { DiskPartials } from './disk-partial';
import {
  ByteRange,
  ByteStore,
  GRACE_PERIOD_MS,
  ObjectGoneError,
  PartialObjects,
  ReferenceCheck,
  TempObject,
} from './store';
import { JOURNAL_RE, readJournal, UploadJournal } from './upload-journal';

/**
 * Read size for downloads: 1 MiB reads keep syscalls, stream overhead and allocations per
 * byte lower than a stream's default 64 KiB reads (bench/files.js, the 1 GiB download, measures it).
 */
const READ_CHUNK = 1024 * 1024;
/**
 * An upload's written bytes are handed to the disk in the background every this many bytes
 * (fdatasync while the next bytes arrive), so the fsync that commits it only waits for the tail
 * instead of writing back the whole file at the end.
 */
const FLUSH_BEHIND_BYTES = 64 * 1024 * 1024;
const ID_RE = /^[0-9a-f]{32}$/;
const TMP_RE = /^([0-9a-f]{8})-(\d+)-([0-9a-f]{32})\.part$/;

/** Identifies this host in temporary names, so recovery only judges its own processes by pid. */
export const HOST_TAG = crypto.createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);

function isEnoent(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

async function unlinkQuietly(p: string): Promise<boolean> {
  try {
    await fs.promises.unlink(p);
    return true;
  } catch (err) {
    if (isEnoent(err)) return false;
    throw err;
  }
}

/**
 * Closes a descriptor without waiting for it: closing a file opened only for reading, or one already
 * fsynced, has nothing to report that anyone could act on. Still on the pool, never the event loop.
 */
function closeLater(io: DiskIo, fd: number): void {
  io.close(fd).catch(() => {});
}

/** fsync of an open directory. */
async function fsyncDirFd(io: DiskIo, fd: number): Promise<void> {
  try {
    await io.fsync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the entry is then as durable as they make it.
  }
}

/** Read buffers of finished downloads, reused by the next ones (at most this many kept). */
const spareBuffers: Buffer[] = [];
const SPARE_BUFFERS_MAX = 16;

function prematureClose(): Error {
  return Object.assign(new Error('the response closed before the object was sent'), {
    code: 'ERR_STREAM_PREMATURE_CLOSE',
  });
}

/**
 * The bytes `start`..`end` (inclusive; to the end of the object when undefined) of an open object.
 * As a Readable it reads 1 MiB at a time into fresh buffers. `sendTo` is the fast path of a
 * download: the next 1 MiB is read while the previous one is written, into buffers that are
 * reused once the destination reports them written, so a download allocates (and the allocator
 * maps, faults in and returns) no memory per read, and holds at most 2 MiB.
 */
export class ObjectReader extends Readable {
  private fd: number | undefined;
  private position: number;
  private readonly end: number;
  /** Whether sendTo may hand the bytes to the kernel (sendfile.ts) when `out` allows it. */
  sendfile = false;

  constructor(
    readonly id: string,
    fd: number,
    start: number,
    end = Infinity,
    private readonly io: DiskIo = nodeDiskIo,
  ) {
    super({ highWaterMark: READ_CHUNK });
    this.fd = fd;
    this.position = start;
    this.end = end;
  }

  override _read(): void {
    const fd = this.fd;
    if (fd === undefined) return;
    const want = Math.min(READ_CHUNK, this.end - this.position + 1);
    if (want <= 0) return void this.push(null);
    const buf = Buffer.allocUnsafeSlow(want);
    this.io.read(fd, buf, 0, want, this.position).then(
      (n) => {
        if (n === 0) return void this.push(null);
        this.position += n;
        this.push(n < want ? buf.subarray(0, n) : buf);
      },
      (err) => this.destroy(err),
    );
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return cb(err);
    this.io.close(fd).then(
      () => cb(err),
      () => cb(err),
    );
  }

  /**
   * sendTo through sendfile(2): the head first, through Node (its write callback: handed to the
   * kernel, nothing left buffered), then the body from the file straight to the socket, which Node
   * does not write to again before the response ends. False, with nothing sent but the head and
   * the descriptor still open, when the socket cannot take it (TLS, say): sendTo goes on as before.
   */
  private async sentDirect(mod: SendfileModule, out: ServerResponse, fd: number): Promise<boolean> {
    // The descriptor is closed here however this ends, unless it goes back to sendTo (false) or to
    // the sendfile module, which closes it on its own thread when the body is sent.
    let handedBack = false;
    let handedOver = false;
    try {
      await new Promise<void>((resolve, reject) => out.write('', (err) => (err ? reject(err) : resolve())));
      if (out.destroyed) throw prematureClose();
      const socketFd = directSocketFd(out);
      if (socketFd === undefined) {
        handedBack = true;
        return false;
      }
      const length = this.end - this.position + 1;
      const sent = sendFileRange(mod, out, socketFd, fd, this.position, length);
      handedOver = true;
      await sent;
      this.position += length;
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECANCELED') throw prematureClose();
      if (code === 'ESHORT') throw new Error(`object ${this.id} is shorter than its metadata`, { cause: err });
      throw err;
    } finally {
      if (!handedBack) {
        if (!handedOver) closeLater(this.io, fd);
        this.destroy();
      }
    }
  }

  /**
   * Writes the remaining bytes to `out` (without ending it) and closes the object. Rejects when
   * reading fails, when the object is shorter than the range, or when `out` closes first.
   */
  async sendTo(out: Writable): Promise<void> {
    const fd = this.fd;
    if (fd === undefined) throw new Error('the object reader is closed');
    // Taken over from the Readable side, which must not read or close it meanwhile.
    this.fd = undefined;
    const mod = this.sendfile && this.end !== Infinity && out instanceof ServerResponse ? sendfileModule() : null;
    if (mod && (await this.sentDirect(mod, out as ServerResponse, fd))) return;
    let onClose!: () => void;
    const closed = new Promise<never>((_resolve, reject) => {
      onClose = () => reject(prematureClose());
      out.once('close', onClose);
    });
    closed.catch(() => {});
    try {
      let writing: Promise<void> | undefined;
      while (this.position <= this.end) {
        const buf = spareBuffers.pop() ?? Buffer.allocUnsafeSlow(READ_CHUNK);
        const want = Math.min(READ_CHUNK, this.end - this.position + 1);
        const n = await this.io.read(fd, buf, 0, want, this.position);
        if (n === 0) {
          if (this.end === Infinity) break;
          throw new Error(`object ${this.id} is shorter than its metadata`);
        }
        this.position += n;
        // One write in flight: the read above overlapped it.
        if (writing) await Promise.race([writing, closed]);
        if (out.destroyed) throw prematureClose();
        writing = new Promise<void>((resolve, reject) => {
          out.write(n < buf.length ? buf.subarray(0, n) : buf, (err) => {
            if (err) return reject(err);
            // Written out: the destination holds no reference to the bytes any more.
            if (spareBuffers.length < SPARE_BUFFERS_MAX) spareBuffers.push(buf);
            resolve();
          });
        });
        writing.catch(() => {});
      }
      if (writing) await Promise.race([writing, closed]);
    } finally {
      out.off('close', onClose);
      closeLater(this.io, fd);
      this.destroy();
    }
  }
}

/** The object cache's size (FILES_OBJECT_CACHE_BYTES) and largest object (FILES_OBJECT_CACHE_MAX). */
export interface DiskStoreOptions {
  cacheBytes: number;
  cacheMaxObject: number;
  /** Told of every write the file system refused for space (the metrics count them). */
  onNoSpace?: () => void;
  /** Whether downloads may use sendfile(2) when its module was built (FILES_SENDFILE; sendfile.ts). */
  sendfile?: boolean;
  /** The file-system calls on descriptors (disk-io.ts); a test's fault-injection double replaces them. */
  io?: DiskIo;
}

export const DEFAULT_DISK_OPTIONS: DiskStoreOptions = { cacheBytes: 64 * 1024 * 1024, cacheMaxObject: 1024 * 1024 };

export class DiskStore implements ByteStore {
  readonly kind = 'disk' as const;
  private readonly tmpDir: string;
  private readonly objectsDir: string;
  private readonly hot: ObjectCache;
  private readonly onNoSpace: () => void;
  private readonly sendfile: boolean;
  private readonly io: DiskIo;
  /**
   * Object directories known to exist (at most 256), each with a descriptor kept open for the
   * fsync that makes a new object's entry durable: an upload skips their mkdir, open and close.
   */
  private readonly objectDirs = new Map<string, Promise<number>>();
  private readonly journal: UploadJournal;
  /** Resumable uploads' bytes under `partial/` (disk-partial.ts); set by open(). */
  partials!: PartialObjects;

  private constructor(
    readonly root: string,
    options: DiskStoreOptions,
  ) {
    this.tmpDir = path.join(root, 'tmp');
    this.objectsDir = path.join(root, 'objects');
    this.hot = new ObjectCache(options.cacheBytes, options.cacheMaxObject);
    this.onNoSpace = options.onNoSpace ?? (() => {});
    this.sendfile = options.sendfile ?? true;
    this.io = options.io ?? nodeDiskIo;
    this.journal = new UploadJournal(this.tmpDir, `${HOST_TAG}-${process.pid}`);
  }

  static async open(root: string, options: DiskStoreOptions = DEFAULT_DISK_OPTIONS): Promise<DiskStore> {
    const store = new DiskStore(root, options);
    await fs.promises.mkdir(store.tmpDir, { recursive: true });
    await fs.promises.mkdir(store.objectsDir, { recursive: true });
    store.partials = await DiskPartials.open(path.join(root, 'partial'), (id) => store.objectPath(id), store.io);
    // Loaded now, not by the first download: loading reads the module's file.
    if (store.sendfile) sendfileModule();
    return store;
  }

  objectPath(id: string): string {
    if (!ID_RE.test(id)) throw new Error(`invalid object id ${JSON.stringify(id)}`);
    return path.join(this.objectsDir, id.slice(0, 2), id);
  }

  /** Passes `op`'s result through, telling onNoSpace when it failed for want of space. */
  private async noting<T>(op: Promise<T>): Promise<T> {
    try {
      return await op;
    } catch (err) {
      if (isNoSpaceError(err)) this.onNoSpace();
      throw err;
    }
  }

  /** Creates an object directory once per process (at most 256 of them); resolves its descriptor. */
  private dirFd(dir: string): Promise<number> {
    let fd = this.objectDirs.get(dir);
    if (!fd) {
      fd = fs.promises.mkdir(dir, { recursive: true }).then(() => this.io.open(dir, 'r'));
      this.objectDirs.set(dir, fd);
      // A failure is not remembered: the next upload tries again.
      fd.catch(() => this.objectDirs.delete(dir));
    }
    return fd;
  }

  /** Forgets a directory removed behind the store's back (its descriptor names the removed one). */
  private forgetDir(dir: string): void {
    const fd = this.objectDirs.get(dir);
    this.objectDirs.delete(dir);
    fd?.then((f) => closeLater(this.io, f)).catch(() => {});
  }

  async create(): Promise<TempObject> {
    const temp = await this.noting(this.createTemp());
    return {
      id: temp.id,
      write: (chunk) => this.noting(temp.write(chunk)),
      writev: (chunks) => this.noting(temp.writev!(chunks)),
      commit: () => this.noting(temp.commit()),
      settle: () => temp.settle(),
      abort: () => temp.abort(),
    };
  }

  private async createTemp(): Promise<TempObject> {
    const id = crypto.randomBytes(16).toString('hex');
    const finalPath = this.objectPath(id);
    const dir = path.dirname(finalPath);
    // The journal line first: an object never exists unlisted until metadata refers to it.
    const entry = await this.journal.begin(id);
    const io = this.io;
    let fd: number | undefined;
    let dirFd: number;
    try {
      dirFd = await this.dirFd(dir);
      fd = await io.open(finalPath, 'wx').catch(async (err) => {
        // The directory was removed behind our back (its cached descriptor is stale): create it again.
        if (!isEnoent(err)) throw err;
        this.forgetDir(dir);
        dirFd = await this.dirFd(dir);
        return io.open(finalPath, 'wx');
      });
    } catch (err) {
      await entry.end().catch(() => {});
      throw err;
    }
    // The new directory entry becomes durable while the bytes arrive; commit waits for it.
    const entryDurable = fsyncDirFd(io, dirFd);
    entryDurable.catch(() => {});
    let position = 0;
    // A write-behind flush's failure fails the commit.
    const behind = writeBehind(io, fd, FLUSH_BEHIND_BYTES);
    const written = (n: number): void => {
      position += n;
      behind.wrote(n);
    };
    return {
      id,
      async write(chunk) {
        let off = 0;
        while (off < chunk.length) {
          const n = await io.write(fd!, chunk, off, chunk.length - off, position);
          off += n;
          written(n);
        }
      },
      async writev(chunks) {
        await writevAll(io, fd!, chunks, position, written);
      },
      async commit() {
        // Durable before visible: the last write-behind flush, the fsync of the whole file, and
        // the directory entry (synced since the object was created).
        await behind.settled();
        await io.fsync(fd!);
        // Durable now: the close does no I/O, and nothing waits for it.
        const f = fd!;
        fd = undefined;
        closeLater(io, f);
        await entryDurable;
      },
      async settle() {
        // Metadata refers to the object now: it is no longer recovery's to remove.
        await entry.end();
      },
      async abort() {
        if (fd !== undefined) {
          const f = fd;
          fd = undefined;
          await behind.settled().catch(() => {});
          await io.close(f).catch(() => {});
        }
        await unlinkQuietly(finalPath);
        await entry.end();
      },
    };
  }

  async openRead(id: string, range?: ByteRange): Promise<Readable> {
    // Opening first turns a concurrent unlink into ObjectGoneError before any header is sent;
    // once open, the descriptor keeps the bytes readable even if the object is unlinked.
    const reader = new ObjectReader(id, await this.openObject(id), range?.start ?? 0, range?.end, this.io);
    reader.sendfile = this.sendfile;
    return reader;
  }

  /** Opens an object for reading. Throws ObjectGoneError when it does not exist. */
  private async openObject(id: string): Promise<number> {
    try {
      return await this.io.open(this.objectPath(id), 'r');
    } catch (err) {
      throw isEnoent(err) ? new ObjectGoneError(id) : err;
    }
  }

  exists(id: string): Promise<boolean> {
    const p = this.objectPath(id);
    return new Promise((resolve) => fs.access(p, (err) => resolve(!err)));
  }

  /**
   * The whole object (`size` bytes) from memory when the object cache has it or admits it now (its
   * second read, object-cache.ts); undefined otherwise: read it with openRead, which allocates
   * nothing per request. The Buffer is shared between requests: callers must not modify it.
   */
  async readCached(id: string, size: number): Promise<Buffer | undefined> {
    if (!this.hot.accepts(size)) return undefined;
    const cached = this.hot.get(id);
    if (cached && cached.length === size) return cached;
    if (!this.hot.shouldAdmit(id)) return undefined;
    const buf = await this.readSmall(id, size);
    this.hot.set(id, buf);
    return buf;
  }

  /** Hits, misses and size of the object cache (exposed on /metrics). */
  cacheStats(): ObjectCacheStats {
    return this.hot.stats();
  }

  /** Reads a whole small object (or range) into memory: cheaper than a stream for tiny files. */
  async readSmall(id: string, length: number, start = 0): Promise<Buffer> {
    const fd = await this.openObject(id);
    try {
      const buf = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const n = await this.io.read(fd, buf, got, length - got, start + got);
        if (n === 0) throw new Error(`object ${id} is shorter than its metadata`);
        got += n;
      }
      return buf;
    } finally {
      closeLater(this.io, fd);
    }
  }

  async release(id: string): Promise<void> {
    this.hot.delete(id);
    await unlinkQuietly(this.objectPath(id));
  }

  /**
   * Removes the objects of uploads that died with their process: this host's dead processes at
   * once, any other after the grace period. An object metadata refers to (a crash between the
   * metadata write and settle) only loses its journal line. Marker files of earlier versions
   * (one per upload) and, before those, temporary bytes are removed the same way.
   */
  async recover(isReferenced: ReferenceCheck): Promise<number> {
    let removed = 0;
    const cutoff = Date.now() - GRACE_PERIOD_MS;
    for (const name of await fs.promises.readdir(this.tmpDir)) {
      const journal = JOURNAL_RE.exec(name);
      const m = journal ?? TMP_RE.exec(name);
      const p = path.join(this.tmpDir, name);
      const mine = m !== null && m[1] === HOST_TAG;
      const pid = m ? Number(m[2]) : NaN;
      const st = await fs.promises.stat(p).catch(() => undefined);
      // Our own pid: an earlier process's (pids are reused, in containers always) only when the file is
      // older than this process. The server listens before this recovery runs, so a file of ours
      // written since lists an upload in flight, which must keep its bytes (removing them answered 500).
      const earlier = pid === process.pid && st !== undefined && st.mtimeMs < performance.timeOrigin;
      let dead = mine && (earlier || (pid !== process.pid && !isAlive(pid)));
      if (!dead) dead = st !== undefined && st.mtimeMs < cutoff;
      if (!dead) continue;
      if (journal) {
        removed += await this.recoverJournal(p, isReferenced);
        continue;
      }
      const id = m?.[3];
      const orphan = id === undefined || !(await isReferenced([id])).has(id);
      const objectRemoved = orphan && id !== undefined && (await unlinkQuietly(this.objectPath(id)));
      const markerRemoved = await unlinkQuietly(p);
      if (orphan && (objectRemoved || markerRemoved)) removed++;
    }
    return removed;
  }

  /** Removes the objects a dead process's journal lists that metadata does not refer to, then the journal. */
  private async recoverJournal(p: string, isReferenced: ReferenceCheck): Promise<number> {
    const ids = await readJournal(p).catch((err) => (isEnoent(err) ? [] : Promise.reject(err)));
    let removed = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      const referenced = await isReferenced(batch);
      for (const id of batch) if (!referenced.has(id) && (await unlinkQuietly(this.objectPath(id)))) removed++;
    }
    await unlinkQuietly(p);
    return removed;
  }

  /** Whether `name` in tmp/ is a journal of this process (uploads in flight; the journal removes it). */
  private isOwnJournal(name: string, mtimeMs: number): boolean {
    const m = JOURNAL_RE.exec(name);
    return m !== null && m[1] === HOST_TAG && Number(m[2]) === process.pid && mtimeMs >= performance.timeOrigin;
  }

  async collect(isReferenced: ReferenceCheck, options: { full: boolean }): Promise<number> {
    const cutoff = Date.now() - GRACE_PERIOD_MS;
    let removed = 0;
    // Temporary files untouched for the whole grace period belong to dead uploads.
    for (const name of await fs.promises.readdir(this.tmpDir)) {
      const p = path.join(this.tmpDir, name);
      const st = await fs.promises.stat(p).catch(() => undefined);
      if (!st || st.mtimeMs >= cutoff || this.isOwnJournal(name, st.mtimeMs)) continue;
      if (JOURNAL_RE.test(name)) removed += await this.recoverJournal(p, isReferenced);
      else if (await unlinkQuietly(p)) removed++;
    }
    if (!options.full) return removed;
    for (const sub of await fs.promises.readdir(this.objectsDir)) {
      const dir = path.join(this.objectsDir, sub);
      const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
      const old: string[] = [];
      for (const name of names) {
        if (!ID_RE.test(name)) continue;
        const st = await fs.promises.stat(path.join(dir, name)).catch(() => undefined);
        if (st && st.mtimeMs < cutoff) old.push(name);
      }
      for (let i = 0; i < old.length; i += 500) {
        const batch = old.slice(i, i + 500);
        const referenced = await isReferenced(batch);
        for (const id of batch) {
          if (!referenced.has(id) && (await unlinkQuietly(this.objectPath(id)))) removed++;
        }
      }
    }
    return removed;
  }
}
