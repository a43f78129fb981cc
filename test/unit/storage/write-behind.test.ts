/**
 * Write-behind (src/storage/disk-io.ts): a file's bytes go to the disk in the background while the
 * next ones arrive, so the fsync that makes it durable waits only for the tail. Used by whole
 * uploads (disk.ts) and by resumable uploads' PATCHes (disk-partial.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeBehind, type DiskIo } from '../../../src/storage/disk-io';
import { DiskPartials } from '../../../src/storage/disk-partial';
import { DiskIoDouble } from '../../helpers/disk-io-double';

const MiB = 1024 * 1024;

/** A DiskIo whose fdatasyncs wait until the test lets each go, and may fail. */
function heldSyncs(): { io: DiskIo; started: number; release(err?: Error): void } {
  const waiting: { resolve(): void; reject(err: Error): void }[] = [];
  const state = {
    started: 0,
    release(err?: Error) {
      const w = waiting.shift()!;
      if (err) w.reject(err);
      else w.resolve();
    },
    io: {
      fdatasync: () =>
        new Promise<void>((resolve, reject) => {
          state.started++;
          waiting.push({ resolve, reject });
        }),
    } as unknown as DiskIo,
  };
  return state;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('writeBehind', () => {
  it('starts one flush per `every` bytes written, never two at once, and settles after it', async () => {
    const syncs = heldSyncs();
    const behind = writeBehind(syncs.io, 7, 16);
    behind.wrote(10);
    expect(syncs.started).toBe(0);
    behind.wrote(10);
    expect(syncs.started).toBe(1);
    behind.wrote(100); // a flush is in flight: these wait for the next
    expect(syncs.started).toBe(1);
    let settled = false;
    const done = behind.settled().then(() => (settled = true));
    await turn();
    expect(settled).toBe(false);
    syncs.release();
    await done;
    expect(settled).toBe(true);
    behind.wrote(16);
    expect(syncs.started).toBe(2);
    syncs.release();
    await behind.settled();
  });

  it('keeps the first failed flush and rejects every later settled() with it', async () => {
    const syncs = heldSyncs();
    const behind = writeBehind(syncs.io, 7, 1);
    behind.wrote(1);
    const failure = new Error('EIO');
    syncs.release(failure);
    await expect(behind.settled()).rejects.toBe(failure);
    behind.wrote(1);
    syncs.release();
    await expect(behind.settled()).rejects.toBe(failure);
  });
});

describe('a resumable upload PATCH (DiskPartials writer)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-write-behind-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('flushes its bytes while they arrive, and its close fsyncs after the last flush ended', async () => {
    const io = new DiskIoDouble();
    const partials = await DiskPartials.open(path.join(dir, 'partial'), (id) => path.join(dir, 'objects', id), io);
    const id = partials.newId();
    const writer = await partials.openWriter(id, 0);
    const chunk = Buffer.alloc(4 * MiB, 1);
    for (let i = 0; i < 10; i++) await writer.writev([chunk]);
    await writer.close();
    const object = `object:${id}`;
    const log = io.log.filter((l) => l.endsWith(object) || l.includes(`${object} #`));
    const flushes = log.filter((l) => l === `fdatasync ${object}`).length;
    // 40 MiB in 4 MiB writes: a flush starts at 16 and at 32 MiB (or later, if the first still ran).
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThanOrEqual(2);
    const fsyncStart = log.findIndex((l) => l.startsWith(`fsync-start ${object}`));
    expect(fsyncStart).toBeGreaterThan(log.lastIndexOf(`fdatasync ${object}`));
    expect(fs.statSync(path.join(dir, 'partial', id)).size).toBe(40 * MiB);
  });

  it('writes nothing back early for a PATCH below the write-behind size', async () => {
    const io = new DiskIoDouble();
    const partials = await DiskPartials.open(path.join(dir, 'partial'), (id) => path.join(dir, 'objects', id), io);
    const id = partials.newId();
    const writer = await partials.openWriter(id, 0);
    await writer.writev([Buffer.alloc(MiB, 2)]);
    await writer.close();
    expect(io.log.filter((l) => l.startsWith('fdatasync'))).toEqual([]);
    expect(io.log.filter((l) => l.startsWith(`fsync object:${id}`))).toHaveLength(1);
  });
});
