/**
 * Resumable uploads are durable before they are recorded (docs/files-api.md §4.9, §13), as a PUT of
 * the same bytes is: the bytes of each PATCH are durable before the journaled offset update that the
 * next HEAD reads, and the finished file's bytes before its metadata insert (j: true).
 *
 * Disk store: a double at the store's file-system boundary (test/helpers/disk-io-double.ts) logs each
 * fsync when it completed, slowed down so a sync not waited for would complete late; the database
 * commands go in the same log.
 *
 * GridFS store: the commands the server sends and the replies it gets, in order
 * (test/helpers/command-log.ts). A PATCH's chunk writes are answered, then a journaled write of the
 * object is sent and answered, before its offset update is sent; and so for all of the object's
 * writes (chunks, files document) before the metadata insert.
 */
import crypto from 'node:crypto';
import { commandLog, GRIDFS_BYTES, journaledBefore, Logged, onGridFsObject } from '../../helpers/command-log';
import { DiskIoDouble } from '../../helpers/disk-io-double';
import { watchingCommands } from '../../helpers/exchanges';
import { startTestServer, TestServer } from '../../helpers/server';
import { client, metadata } from './helpers';

type Command = Record<string, unknown>;
const TUS = { 'tus-resumable': '1.0.0' };
const OCTETS = { ...TUS, 'content-type': 'application/offset+octet-stream' };

/** Creates an upload of `data` (named `name` when given) and returns its URL's path. */
async function create(c: ReturnType<typeof client>, data: Buffer, name?: string): Promise<string> {
  const meta: Record<string, string> = name
    ? { 'upload-metadata': `filename ${Buffer.from(name).toString('base64')}` }
    : {};
  const created = await c.req('POST', '/upload/resumable', {
    headers: { ...TUS, 'upload-length': String(data.length), ...meta },
  });
  expect(created.status).toBe(201);
  return new URL(created.headers.location!).pathname;
}

/** Sends `data` in PATCHes ending at each of `ends`, one after the other. */
async function patchInParts(c: ReturnType<typeof client>, url: string, data: Buffer, ends: number[]): Promise<void> {
  let from = 0;
  for (const to of ends) {
    const r = await c.req('PATCH', url, {
      headers: { ...OCTETS, 'upload-offset': String(from) },
      body: data.subarray(from, to),
    });
    expect(r.status).toBe(204);
    expect(r.headers['upload-offset']).toBe(String(to));
    from = to;
  }
}

describe('resumable uploads on the disk store', () => {
  let s: TestServer;
  const io = new DiskIoDouble();
  beforeAll(async () => {
    s = await startTestServer({ FILES_STORAGE: 'disk' }, { diskIo: io });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("each PATCH's bytes are fsynced before its offset is recorded, and before the file's metadata", async () => {
    io.syncDelayMs = { file: 200, dir: 0 };
    const c = client(s);
    const data = crypto.randomBytes(600 * 1024);
    const url = await create(c, data);
    await watchingCommands(
      s,
      () => patchInParts(c, url, data, [250_000, data.length]),
      (name, cmd: Command) => {
        const j = String((cmd.writeConcern as Command | undefined)?.j);
        if (name === 'update' && cmd.update === 'resumable_uploads') {
          const set = ((cmd.updates as { u: Command }[])[0]!.u.$set ?? {}) as Command;
          if ('offset' in set) io.log.push(`record-offset ${String(set.offset)} j=${j}`);
        }
        if (name === 'insert' && cmd.insert === 'files') io.log.push(`insert-metadata j=${j}`);
      },
    );
    const objectId = (await s.agora.db.conn.collection('files').findOne({}))!.objectId as string;
    const log = io.log;
    const fsyncs = log.map((l, i) => (l.startsWith(`fsync object:${objectId}`) ? i : -1)).filter((i) => i >= 0);
    const first = log.indexOf('record-offset 250000 j=true');
    const second = log.indexOf(`record-offset ${data.length} j=true`);
    const insert = log.indexOf('insert-metadata j=true');
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(insert).toBeGreaterThan(second);
    // A completed fsync of the object lies before each recorded offset, after the bytes it covers.
    const lastWriteBefore = (i: number) => log.slice(0, i).lastIndexOf(`write object:${objectId}`);
    for (const at of [first, second]) {
      expect(fsyncs.some((f) => f < at && f > lastWriteBefore(at))).toBe(true);
    }
  });
});

describe('resumable uploads on the GridFS store', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ FILES_STORAGE: 'gridfs' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("each PATCH's chunks are journaled before its offset is recorded, the object before the metadata", async () => {
    const c = client(s);
    const data = crypto.randomBytes(600 * 1024);
    // GridFS chunks are 255 KiB: the first part ends on a chunk's end, the next ones within chunks.
    const ends = [255 * 1024, 450_000, data.length];
    const url = await create(c, data, 'resumed-gridfs.bin');
    const log = await commandLog(s, () => patchInParts(c, url, data, ends));

    const docs = (await metadata(s)) as { objectId: string; filename: string }[];
    expect(docs.map((d) => d.filename)).toEqual(['resumed-gridfs.bin']);
    const id = docs[0]!.objectId;
    const onObject = onGridFsObject(id);
    const isWrite = (e: Logged) => ['insert', 'update'].includes(e.name) && onObject(e);
    const isChunkWrite = (e: Logged) => isWrite(e) && e.collection === 'filedata.chunks';
    const isByteWrite = (e: Logged) => isWrite(e) && GRIDFS_BYTES.includes(e.collection);

    // 1. Each PATCH: its chunk writes answered, then journaled, before the (journaled) offset update.
    const offsets = log
      .map((e, i) => ({ e, i }))
      .filter(({ e }) => e.what === 'sent' && e.name === 'update' && e.collection === 'resumable_uploads')
      .map(({ e, i }) => ({
        i,
        j: e.j,
        set: (e.command.updates as { u: { $set?: { offset?: number } } }[])[0]!.u.$set,
      }))
      .filter(({ set }) => set?.offset !== undefined);
    expect(offsets.map(({ set, j }) => ({ offset: set!.offset, j }))).toEqual(
      ends.map((offset) => ({ offset, j: true })),
    );
    let from = 0;
    for (const { i, set } of offsets) {
      expect({ offset: set!.offset, journaled: journaledBefore(log, i, isChunkWrite, onObject, from) }).toEqual({
        offset: set!.offset,
        journaled: true,
      });
      from = i + 1;
    }

    // 2. The object (its chunks and files document) journaled before the metadata insert, itself j: true.
    const insert = log.findIndex(
      (e) => e.what === 'sent' && e.name === 'insert' && e.collection === 'files' && e.ids.includes(id),
    );
    expect(insert).toBeGreaterThan(offsets.at(-1)!.i);
    expect(log[insert]!.j).toBe(true);
    const byteWrites = log.filter((e, i) => i < insert && e.what === 'sent' && isByteWrite(e));
    expect(new Set(byteWrites.map((e) => e.collection))).toEqual(new Set(GRIDFS_BYTES));
    expect(journaledBefore(log, insert, isByteWrite, onObject)).toBe(true);

    // 3. An ordinary file now.
    const dl = await c.get('/selif/resumed-gridfs.bin');
    expect(dl.status).toBe(200);
    const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
    expect(sha(dl.body)).toBe(sha(data));
  });
});
