/**
 * Durable before visible (docs/files-api.md §13, issue 41): an upload's bytes are on disk before the
 * metadata write that makes them a file, and that write asks for the journal.
 *
 * Disk store: a double at its file-system boundary (src/storage/disk-io.ts) logs each call on an
 * object and its directory when it completed; the metadata insert is logged in the same list when the
 * server sends it. Each object's fsync (or fdatasync) after its last write, and an fsync of its
 * directory begun after the object's entry was created, complete before its metadata insert is sent.
 *
 * GridFS store: the commands the server sends and the replies it gets, in order. Each object's chunk
 * and files-document inserts are answered, then a journaled write (`j: true`) of the store is sent and
 * answered, before its metadata insert (itself `j: true`) is sent.
 */
import crypto from 'node:crypto';
import { DiskIoDouble } from '../../helpers/disk-io-double';
import {
  Command,
  commandLog,
  GRIDFS_BYTES,
  idsOf,
  journaledBefore,
  Logged,
  onGridFsObject,
} from '../../helpers/command-log';
import { watchingCommands } from '../../helpers/exchanges';
import { startTestServer, TestServer } from '../../helpers/server';
import { client, JSON_ACCEPT, metadata } from './helpers';

/** Sizes of one write, several, and several batches past the write-behind flush. */
const SIZES = [10, 300 * 1024, 3 * 1024 * 1024 + 7];
/** Concurrent uploads: the order must hold for each of them, not only for one at a time. */
const CONCURRENT = 24;

async function uploadAll(s: TestServer): Promise<void> {
  const c = client(s);
  for (const size of SIZES) {
    const r = await c.put(`/upload/one-${size}.bin`, crypto.randomBytes(size), JSON_ACCEPT);
    expect(r.status).toBe(200);
  }
  const all = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      c.put(`/upload/many-${i}.bin`, crypto.randomBytes(4096 + i), JSON_ACCEPT),
    ),
  );
  for (const r of all) expect(r.status).toBe(200);
}

describe('disk store', () => {
  let s: TestServer;
  const io = new DiskIoDouble();
  beforeAll(async () => {
    s = await startTestServer({ FILES_STORAGE: 'disk' }, { diskIo: io });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('each object and its directory entry are fsynced before the metadata insert that answers the upload', async () => {
    // A sync the store started but did not wait for then completes after the insert.
    // (A directory's is started when the object is created, so it gets longer to complete.)
    io.syncDelayMs = { file: 150, dir: 1500 };
    await watchingCommands(
      s,
      () => uploadAll(s),
      (name, c) => {
        if (name === 'insert' && c.insert === 'files')
          io.log.push(`insert-metadata ${idsOf(name, c).join(' ')} j=${String((c.writeConcern as Command)?.j)}`);
      },
    );
    const docs = (await metadata(s)) as { objectId: string }[];
    expect(docs).toHaveLength(SIZES.length + CONCURRENT);
    const log = io.log;
    for (const { objectId: id } of docs) {
      const object = `object:${id}`;
      const dir = `dir:${id.slice(0, 2)}`;
      const insert = log.findIndex((l) => l.startsWith('insert-metadata ') && l.split(' ').includes(id));
      expect(insert).toBeGreaterThan(0);
      expect(log[insert]).toMatch(/ j=true$/);
      const opened = log.indexOf(`open ${object}`);
      const lastWrite = log.lastIndexOf(`write ${object}`);
      expect(opened).toBeGreaterThanOrEqual(0);
      expect(lastWrite).toBeGreaterThan(opened);
      // The file's data: synced after its last write, before the insert.
      const synced = log.findIndex(
        (l, i) => i > lastWrite && (l.startsWith(`fsync ${object} #`) || l === `fdatasync ${object}`),
      );
      expect({ id, synced: synced > lastWrite && synced < insert }).toEqual({ id, synced: true });
      // The directory entry: an fsync of the directory begun after the object was created, done before.
      const entrySynced = log.some((l, i) => {
        if (i <= opened || i >= insert || !l.startsWith(`fsync-start ${dir} #`)) return false;
        const done = log.indexOf(l.replace('fsync-start', 'fsync'), i);
        return done > i && done < insert;
      });
      expect({ id, entrySynced }).toEqual({ id, entrySynced: true });
    }
  });
});

describe('GridFS store', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ FILES_STORAGE: 'gridfs' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('each object is journaled before the metadata insert that answers the upload', async () => {
    const log = await commandLog(s, () => uploadAll(s));
    const docs = (await metadata(s)) as { objectId: string }[];
    expect(docs).toHaveLength(SIZES.length + CONCURRENT);
    for (const { objectId: id } of docs) {
      const insert = log.findIndex(
        (e) => e.what === 'sent' && e.name === 'insert' && e.collection === 'files' && e.ids.includes(id),
      );
      expect(insert).toBeGreaterThan(0);
      expect(log[insert]!.j).toBe(true);
      const onObject = onGridFsObject(id);
      const isByteWrite = (e: Logged) => e.name === 'insert' && GRIDFS_BYTES.includes(e.collection) && onObject(e);
      // At least one chunk and the files document.
      const byteWrites = log.filter((e) => e.what === 'sent' && isByteWrite(e));
      expect(new Set(byteWrites.map((e) => e.collection))).toEqual(new Set(GRIDFS_BYTES));
      // Each answered, then a journaled write of the store's sent and answered, before the insert.
      expect({ id, journaled: journaledBefore(log, insert, isByteWrite, onObject) }).toEqual({ id, journaled: true });
    }
  });
});
