/**
 * Partial objects of the disk store: `<DATA_DIR>/files/partial/<id>`, one file per resumable upload,
 * apart from `objects/` so the orphan collection never judges them (the resumable uploads' records
 * do, src/files/resumable.service.ts). A complete one is renamed into `objects/` by its commit.
 * Every call goes through libuv's thread pool (fs.promises and disk-io.ts), never the event loop.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { writeBehind, writevAll, type DiskIo } from './disk-io';
import type { PartialObjects, PartialWriter, TempObject } from './store';

const ID_RE = /^[0-9a-f]{32}$/;
/**
 * A PATCH's written bytes go to the disk in the background every this many bytes (disk-io.ts,
 * writeBehind), so its answer waits only for the tail's fsync. Smaller than a whole upload's
 * (disk.ts): a PATCH is often tens of MiB (bench/tus.js sends 50), where 64 MiB never started one.
 */
const PARTIAL_FLUSH_BEHIND_BYTES = 16 * 1024 * 1024;

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on directories; the entry is then as durable as they make it.
  } finally {
    await handle.close();
  }
}

export class DiskPartials implements PartialObjects {
  constructor(
    private readonly dir: string,
    private readonly objectPath: (id: string) => string,
    private readonly io: DiskIo,
  ) {}

  static async open(dir: string, objectPath: (id: string) => string, io: DiskIo): Promise<DiskPartials> {
    await fs.promises.mkdir(dir, { recursive: true });
    return new DiskPartials(dir, objectPath, io);
  }

  private pathOf(id: string): string {
    if (!ID_RE.test(id)) throw new Error(`invalid partial object id ${JSON.stringify(id)}`);
    return path.join(this.dir, id);
  }

  newId(): string {
    return crypto.randomBytes(16).toString('hex');
  }

  async openWriter(id: string, offset: number): Promise<PartialWriter> {
    const p = this.pathOf(id);
    const io = this.io;
    const fd = await io.open(p, offset === 0 ? 'w' : 'r+');
    try {
      // Bytes after the recorded offset came from a request whose end was never recorded.
      await new Promise<void>((resolve, reject) => fs.ftruncate(fd, offset, (err) => (err ? reject(err) : resolve())));
      // A new file's directory entry must outlive a crash as much as its bytes.
      if (offset === 0) await fsyncDir(this.dir);
    } catch (err) {
      await io.close(fd).catch(() => {});
      throw err;
    }
    let position = offset;
    let closed = false;
    // A request's answer waits for the fsync of what it wrote (close): without write-behind a
    // 50 MiB PATCH waited for all of it to reach the disk.
    const behind = writeBehind(io, fd, PARTIAL_FLUSH_BEHIND_BYTES);
    return {
      get written() {
        return position - offset;
      },
      async writev(chunks) {
        await writevAll(io, fd, chunks, position, (n) => {
          position += n;
          behind.wrote(n);
        });
      },
      async close() {
        if (closed) return;
        closed = true;
        try {
          await behind.settled();
          await io.fsync(fd);
        } finally {
          await io.close(fd).catch(() => {});
        }
      },
    };
  }

  async openRead(id: string, length: number): Promise<Readable> {
    if (length === 0) return (await import('node:stream')).Readable.from([]);
    return fs.createReadStream(this.pathOf(id), { start: 0, end: length - 1, highWaterMark: 1024 * 1024 });
  }

  asTemp(id: string, _length: number): TempObject {
    const from = this.pathOf(id);
    const to = this.objectPath(id);
    return {
      id,
      write: () => Promise.reject(new Error('a partial object is written through openWriter')),
      commit: async () => {
        // Its bytes were fsynced by each writer's close; the rename and both directory entries now.
        await fs.promises.mkdir(path.dirname(to), { recursive: true });
        await fs.promises.rename(from, to).catch(async (err) => {
          // Committed already (a second commit after an unknown outcome): the object is there.
          if ((err as NodeJS.ErrnoException).code === 'ENOENT' && (await fs.promises.stat(to).catch(() => null)))
            return;
          throw err;
        });
        await fsyncDir(path.dirname(to));
        await fsyncDir(this.dir);
      },
      settle: () => Promise.resolve(),
      abort: async () => {
        await fs.promises.unlink(from).catch(() => {});
        await fs.promises.unlink(to).catch(() => {});
      },
    };
  }

  async remove(id: string): Promise<void> {
    await fs.promises.unlink(this.pathOf(id)).catch((err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    });
  }
}
