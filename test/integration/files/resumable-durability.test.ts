/**
 * Resumable uploads are durable before they are recorded (docs/files-api.md §4.9, §13), disk store: the
 * bytes of each PATCH are fsynced before the journaled offset update that the next HEAD reads, and
 * the finished file's metadata insert (j: true) comes after that fsync too. A double at the disk
 * store's file-system boundary (test/helpers/disk-io-double.ts) logs each fsync when it completed,
 * slowed down so a sync not waited for would complete late; the database commands go in the same log.
 */
import crypto from 'node:crypto';
import { DiskIoDouble } from '../../helpers/disk-io-double';
import { watchingCommands } from '../../helpers/exchanges';
import { startTestServer, TestServer } from '../../helpers/server';
import { client } from './helpers';

type Command = Record<string, unknown>;
const TUS = { 'tus-resumable': '1.0.0' };
const OCTETS = { ...TUS, 'content-type': 'application/offset+octet-stream' };

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
    const created = await c.req('POST', '/upload/resumable', {
      headers: { ...TUS, 'upload-length': String(data.length) },
    });
    const url = new URL(created.headers.location!).pathname;
    await watchingCommands(
      s,
      async () => {
        for (const [from, to] of [
          [0, 250_000],
          [250_000, data.length],
        ]) {
          const r = await c.req('PATCH', url, {
            headers: { ...OCTETS, 'upload-offset': String(from) },
            body: data.subarray(from, to),
          });
          expect(r.status).toBe(204);
        }
      },
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
