/**
 * Storage consistency (docs/files-api.md §4.6, §11, §13): readers see old or new bytes during an overwrite, never a
 * mix; the sweeper runs at start-up and on its interval; released and orphaned objects are
 * collected only after the grace period.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import mongoose from 'mongoose';
import { TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { ENTRY_OVERHEAD } from '../../../src/storage/object-cache';
import { BACKENDS, client, eventually, metadata, startFor, storeCounts } from './helpers';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** Starts a GET and reads only its first bytes, then waits for `resume` before reading the rest. */
function slowGet(url: string): { firstBytes: Promise<void>; finish(): Promise<Buffer> } {
  const chunks: Buffer[] = [];
  let res: http.IncomingMessage;
  let markFirst!: () => void;
  const firstBytes = new Promise<void>((r) => (markFirst = r));
  const done = new Promise<Buffer>((resolve, reject) => {
    http
      .get(url, { agent: false, highWaterMark: 16 * 1024 } as http.RequestOptions, (r) => {
        res = r;
        r.once('data', (c: Buffer) => {
          chunks.push(c);
          r.pause();
          markFirst();
        });
        r.on('end', () => resolve(Buffer.concat(chunks)));
        r.on('error', reject);
      })
      .on('error', reject);
  });
  return {
    firstBytes,
    finish() {
      res.on('data', (c: Buffer) => chunks.push(c));
      res.resume();
      return done;
    },
  };
}

describe.each(BACKENDS)('consistency on %s', (backend) => {
  let s: TestServer;
  let c: ReturnType<typeof client>;
  let f: Factory;
  beforeAll(async () => {
    s = await startFor(backend);
    c = client(s);
    f = new Factory(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a read that started before an overwrite gets all the old bytes; later reads the new ones', async () => {
    const oldBytes = crypto.randomBytes(6 * 1024 * 1024);
    const newBytes = crypto.randomBytes(5 * 1024 * 1024);
    await f.upload('atomic.bin', oldBytes, { 'files-delete-key': 'k' });
    const reader = slowGet(`${s.url}/selif/atomic.bin`);
    await reader.firstBytes;
    expect((await f.upload('atomic.bin', newBytes, { 'files-delete-key': 'k' })).sha256sum).toBe(sha(newBytes));
    expect(sha(await reader.finish())).toBe(sha(oldBytes));
    expect(sha((await c.get('/selif/atomic.bin')).body)).toBe(sha(newBytes));
  });

  it('reads during repeated overwrites always get one whole version', async () => {
    const versions = [0, 1, 2, 3].map(() => crypto.randomBytes(256 * 1024 + 5));
    const known = new Set(versions.map(sha));
    await f.upload('flip.bin', versions[0]!, { 'files-delete-key': 'k' });
    let writing = true;
    const writer = (async () => {
      for (let i = 1; i < 12; i++) await f.upload('flip.bin', versions[i % 4]!, { 'files-delete-key': 'k' });
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const r = await c.get('/selif/flip.bin');
      expect(r.status).toBe(200);
      expect(known.has(sha(r.body))).toBe(true);
      expect(r.headers.etag).toBe(`"${sha(r.body)}"`);
      reads++;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
  });

  it('released and orphaned objects are collected only after the grace period', async () => {
    await f.upload('gc.txt', 'first', { 'files-delete-key': 'k' });
    await f.upload('gc.txt', 'second', { 'files-delete-key': 'k' });
    const { maintenance } = s.agora.services.files;
    const live = async () => (await storeCounts(s)).objects;
    const files = await metadata(s);

    // Nothing is removed before the grace period: every metadata document keeps its bytes.
    await maintenance.collect(true);
    expect((await c.get('/selif/gc.txt')).text).toBe('second');

    // An object nobody refers to, older than the grace period, goes away; a referenced one stays.
    const orphanId = await makeOrphan(s);
    const before = await live();
    await maintenance.collect(true);
    expect(await live()).toBe(before - 1);
    expect(await objectExists(s, orphanId)).toBe(false);
    expect((await metadata(s)).length).toBe(files.length);
    expect((await c.get('/selif/gc.txt')).text).toBe('second');
  });
});

/** Writes an unreferenced object and backdates it beyond the grace period; returns its id. */
async function makeOrphan(s: TestServer): Promise<string> {
  const store = (s.agora.services.files.maintenance as unknown as { store: import('../../../src/storage').ByteStore })
    .store;
  const temp = await store.create();
  await temp.write(Buffer.from('orphan'));
  await temp.commit();
  await temp.settle();
  const past = new Date(Date.now() - 2 * 60 * 60 * 1000);
  if (s.config.files.storage === 'gridfs') {
    await s.agora.db.conn
      .collection('filedata.files')
      .updateOne({ _id: new mongoose.mongo.ObjectId(temp.id) }, { $set: { uploadDate: past } });
  } else {
    const p = path.join(s.config.dataDir, 'files', 'objects', temp.id.slice(0, 2), temp.id);
    fs.utimesSync(p, past, past);
  }
  return temp.id;
}

async function objectExists(s: TestServer, id: string): Promise<boolean> {
  if (s.config.files.storage === 'gridfs') {
    return (
      (await s.agora.db.conn.collection('filedata.files').countDocuments({ _id: new mongoose.mongo.ObjectId(id) })) > 0
    );
  }
  return fs.existsSync(path.join(s.config.dataDir, 'files', 'objects', id.slice(0, 2), id));
}

describe('the sweeper (FILES_CLEANUP_INTERVAL)', () => {
  let s: TestServer;
  afterAll(async () => {
    await s?.close();
  });

  it('deletes expired files on its interval, without any read', async () => {
    s = await startFor('disk', { FILES_CLEANUP_INTERVAL: '1' });
    const f = new Factory(s);
    await f.upload('soon.txt', 'x');
    await f.upload('stays.txt', 'y');
    await f.setExpiry('soon.txt', 1);
    await eventually(async () => expect((await metadata(s)).map((d) => d.filename)).toEqual(['stays.txt']), 5000);
  });

  it('GridFS: a released object is removed once the grace period has passed', async () => {
    const g = await startFor('gridfs');
    try {
      const c = client(g);
      const f = new Factory(g);
      await f.upload('rel.txt', 'one', { 'files-delete-key': 'k' });
      await f.upload('rel.txt', 'two', { 'files-delete-key': 'k' });
      const released = g.agora.db.conn.collection('filedata.released');
      expect(await released.countDocuments()).toBe(1);
      const filesBefore = await g.agora.db.conn.collection('filedata.files').countDocuments();
      await g.agora.services.files.maintenance.collect(false);
      expect(await released.countDocuments()).toBe(1); // still within the grace period
      await released.updateMany({}, { $set: { releasedAt: new Date(Date.now() - 2 * 60 * 60 * 1000) } });
      await g.agora.services.files.maintenance.collect(false);
      expect(await released.countDocuments()).toBe(0);
      expect(await g.agora.db.conn.collection('filedata.files').countDocuments()).toBe(filesBefore - 1);
      expect((await c.get('/selif/rel.txt')).text).toBe('two');
    } finally {
      await g.close();
    }
  });
});

describe('disk metadata cache', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor('disk');
  });
  afterAll(async () => {
    await s?.close();
  });

  const objectPath = (id: string) => path.join(s.config.dataDir, 'files', 'objects', id.slice(0, 2), id);
  const doc = async (name: string) => (await metadata(s)).find((d) => d.filename === name)! as { objectId: string };

  it('sees a delete made by another process (metadata gone, object unlinked)', async () => {
    const c = client(s);
    const f = new Factory(s);
    await f.upload('other-del.txt', 'cached');
    expect((await c.get('/selif/other-del.txt')).text).toBe('cached'); // now cached
    const { objectId } = await doc('other-del.txt');
    await s.agora.db.conn.collection('files').deleteOne({ _id: 'other-del.txt' as never });
    fs.unlinkSync(objectPath(objectId));
    expect((await c.get('/selif/other-del.txt')).status).toBe(404);
    expect((await c.get('/other-del.txt', { accept: 'application/json' })).status).toBe(404);
  });

  it('sees an overwrite made by another process (new object, metadata switched, old object unlinked)', async () => {
    const c = client(s);
    const f = new Factory(s);
    await f.upload('other-ow.txt', 'old version');
    expect((await c.get('/other-ow.txt', { accept: 'application/json' })).json().size).toBe('11');
    const { objectId } = await doc('other-ow.txt');
    const store = (s.agora.services.files.maintenance as unknown as { store: import('../../../src/storage').ByteStore })
      .store;
    const temp = await store.create();
    await temp.write(Buffer.from('new'));
    await temp.commit();
    await s.agora.db.conn
      .collection('files')
      .updateOne(
        { _id: 'other-ow.txt' as never },
        { $set: { objectId: temp.id, size: 3, sha256: sha(Buffer.from('new')) } },
      );
    fs.unlinkSync(objectPath(objectId));
    expect((await c.get('/selif/other-ow.txt')).text).toBe('new');
    expect((await c.get('/other-ow.txt', { accept: 'application/json' })).json().size).toBe('3');
  });

  it('answers a conditional GET from the current version after another process overwrote the file', async () => {
    const c = client(s);
    const f = new Factory(s);
    await f.upload('other-cond.txt', 'first version');
    const first = await c.get('/selif/other-cond.txt');
    const oldTag = first.headers.etag as string;
    const { objectId } = await doc('other-cond.txt');
    type WithStore = { store: import('../../../src/storage').ByteStore };
    const { store } = s.agora.services.files.maintenance as unknown as WithStore;
    const temp = await store.create();
    await temp.write(Buffer.from('second'));
    await temp.commit();
    const newSha = sha(Buffer.from('second'));
    const switched = { $set: { objectId: temp.id, size: 6, sha256: newSha } };
    await s.agora.db.conn.collection('files').updateOne({ _id: 'other-cond.txt' as never }, switched);
    fs.unlinkSync(objectPath(objectId));
    // The cached entry still names the old bytes: a 304 for the old ETag would be wrong now.
    const conditional = await c.get('/selif/other-cond.txt', { 'if-none-match': oldTag });
    expect(conditional.status).toBe(200);
    expect(conditional.text).toBe('second');
    expect(conditional.headers.etag).toBe(`"${newSha}"`);
  });

  it('caches a small object from its second read on, and reports hits, misses and bytes on /metrics', async () => {
    const c = client(s);
    const f = new Factory(s);
    const bytes = Buffer.alloc(40 * 1024, 3); // under the default largest object (64 KiB with sendfile)
    await f.upload('metered.bin', bytes);
    const counters = async () => {
      const text = (await c.get('/metrics')).text;
      const n = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
      return {
        hit: n(/^files_object_cache_lookups_total\{result="hit"\} (\S+)/m),
        miss: n(/^files_object_cache_lookups_total\{result="miss"\} (\S+)/m),
        admitted: n(/^files_object_cache_admitted_total (\S+)/m),
        bytes: n(/^files_object_cache_bytes (\S+)/m),
      };
    };
    const before = await counters();
    for (let i = 0; i < 4; i++) expect((await c.get('/selif/metered.bin')).body.equals(bytes)).toBe(true);
    const after = await counters();
    // First read: miss, not admitted; second: miss, admitted; third and fourth: hits.
    expect(after.miss - before.miss).toBe(2);
    expect(after.hit - before.hit).toBe(2);
    expect(after.admitted - before.admitted).toBe(1);
    expect(after.bytes - before.bytes).toBe(bytes.length + ENTRY_OVERHEAD);
  });

  it('sees a delete by another process on a plain GET of a file read before (object cache admission)', async () => {
    const c = client(s);
    const f = new Factory(s);
    const big = Buffer.alloc(48 * 1024, 7); // cacheable: its second read is an admission
    await f.upload('other-big.bin', big);
    expect((await c.get('/selif/other-big.bin')).status).toBe(200);
    const { objectId } = await doc('other-big.bin');
    await s.agora.db.conn.collection('files').deleteOne({ _id: 'other-big.bin' as never });
    fs.unlinkSync(objectPath(objectId));
    expect((await c.get('/selif/other-big.bin')).status).toBe(404);
    expect((await c.get('/selif/other-big.bin')).status).toBe(404);
  });
});
