/** Resumable uploads (tus 1.0.0, docs/files-api.md §4.9) by hand over raw HTTP, on both stores. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { TestServer } from '../../helpers/server';
import { BACKENDS, client, eventually, JSON_ACCEPT, startFor } from './helpers';

const BASE = 'https://files.example.org';
const TUS = { 'tus-resumable': '1.0.0' };
const OCTETS = { ...TUS, 'content-type': 'application/offset+octet-stream' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The path of an upload URL (the server answers absolute URLs on PUBLIC_URL). */
const pathOf = (location: string | undefined) => new URL(location!).pathname;

/** Bytes stored for unfinished uploads: partial files (disk) or chunks without a files document (GridFS). */
async function partialBytes(s: TestServer): Promise<number> {
  if (s.config.files.storage === 'gridfs') {
    const db = s.agora.db.conn;
    const files = new Set((await db.collection('filedata.files').find({}).toArray()).map((d) => String(d._id)));
    const chunks = await db.collection('filedata.chunks').find({}).toArray();
    return chunks
      .filter((c) => !files.has(String(c.files_id)))
      .reduce((n, c) => n + (c.data as { length(): number }).length(), 0);
  }
  const dir = path.join(s.config.dataDir, 'files', 'partial');
  return fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

describe.each(BACKENDS)('resumable uploads on %s', (backend) => {
  let s: TestServer;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    s = await startFor(backend, { PUBLIC_URL: `${BASE}/`, FILES_MAX_SIZE: String(4 * 1024 * 1024) });
    c = client(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  const create = async (length: number, headers: Record<string, string> = {}) => {
    const r = await c.req('POST', '/upload/resumable', {
      headers: { ...TUS, 'upload-length': String(length), ...headers },
    });
    expect(r.status).toBe(201);
    return pathOf(r.headers.location);
  };
  const patch = (url: string, offset: number, body: Buffer | string, headers: Record<string, string> = {}) =>
    c.req('PATCH', url, { headers: { ...OCTETS, 'upload-offset': String(offset), ...headers }, body });

  it('OPTIONS advertises version, extensions and the size limit', async () => {
    const r = await c.req('OPTIONS', '/upload/resumable');
    expect(r.status).toBe(204);
    expect(r.headers['tus-version']).toBe('1.0.0');
    expect(r.headers['tus-extension']).toBe('creation,creation-with-upload,termination,expiration,checksum');
    expect(r.headers['tus-max-size']).toBe(String(4 * 1024 * 1024));
    expect(r.headers['tus-checksum-algorithm']).toBe('sha256');
  });

  it('PUT /upload/resumable still uploads a file named resumable', async () => {
    const r = await c.put('/upload/resumable', 'plain put', JSON_ACCEPT);
    expect(r.status).toBe(200);
    expect(r.json().filename).toMatch(/^resumable\b/);
  });

  it('creates, resumes in chunks and commits as PUT /upload would, then the file is ordinary', async () => {
    const bytes = crypto.randomBytes(1_000_000);
    const url = await create(bytes.length, {
      'upload-metadata': `filename ${b64('resumed.bin')},filetype ${b64('application/octet-stream')}`,
      'files-delete-key': 'dk-123',
      'files-access-key': 'ak-456',
      'files-expiry': '3600',
    });
    expect(url).toMatch(/^\/upload\/resumable\/[A-Za-z0-9_-]{43}$/);
    let h = await c.req('HEAD', url, { headers: TUS });
    expect(h.status).toBe(200);
    expect(h.headers['upload-offset']).toBe('0');
    expect(h.headers['upload-length']).toBe(String(bytes.length));
    expect(h.headers['cache-control']).toBe('no-store');
    expect(h.headers['tus-resumable']).toBe('1.0.0');
    expect(new Date(String(h.headers['upload-expires'])).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(h.headers['upload-metadata']).toContain(`filename ${b64('resumed.bin')}`);

    let r = await patch(url, 0, bytes.subarray(0, 400_000));
    expect(r.status).toBe(204);
    expect(r.headers['upload-offset']).toBe('400000');
    const early = await c.get(url, JSON_ACCEPT);
    expect(early.status).toBe(409);
    r = await patch(url, 400_000, bytes.subarray(400_000));
    expect(r.status).toBe(204);
    expect(r.headers['upload-offset']).toBe(String(bytes.length));

    const g = await c.get(url, JSON_ACCEPT);
    expect(g.status).toBe(200);
    const j = g.json();
    expect(Object.keys(j)).toEqual([
      'access_key',
      'delete_key',
      'direct_url',
      'expiry',
      'filename',
      'mimetype',
      'sha256sum',
      'size',
      'url',
    ]);
    expect(j.filename).toBe('resumed.bin');
    expect(j.url).toBe(`${BASE}/resumed.bin`);
    expect(j.direct_url).toBe(`${BASE}/selif/resumed.bin`);
    expect(j.delete_key).toBe('dk-123');
    expect(j.access_key).toBe('ak-456');
    expect(j.size).toBe(String(bytes.length));
    expect(j.sha256sum).toBe(crypto.createHash('sha256').update(bytes).digest('hex'));
    expect(Number(j.expiry)).toBeGreaterThan(Date.now() / 1000 + 3500);
    expect((await c.get(url)).text).toBe(`${BASE}/resumed.bin\n`);

    // An ordinary file now: access key, info, /selif, delete key.
    expect((await c.get('/selif/resumed.bin')).status).toBe(401);
    const dl = await c.get('/selif/resumed.bin', { 'files-access-key': 'ak-456' });
    expect(dl.status).toBe(200);
    expect(dl.body.equals(bytes)).toBe(true);
    const info = await c.get('/resumed.bin', { ...JSON_ACCEPT, 'files-access-key': 'ak-456' });
    expect(info.json().sha256sum).toBe(j.sha256sum);
    h = await c.req('HEAD', url, { headers: TUS });
    expect(h.headers['upload-offset']).toBe(String(bytes.length));
    expect(await partialBytes(s)).toBe(0);
    expect((await c.del('/resumed.bin', { 'files-delete-key': 'dk-123' })).status).toBe(200);
    expect((await c.get('/selif/resumed.bin', { 'files-access-key': 'ak-456' })).status).toBe(404);
  });

  it('names a second upload of a taken name as PUT does, and a random one with Files-Randomize', async () => {
    const first = await c.put('/upload/taken.txt', 'first', JSON_ACCEPT);
    expect(first.json().filename).toBe('taken.txt');
    const url = await create(6, { 'upload-metadata': `filename ${b64('taken.txt')}` });
    expect((await patch(url, 0, 'second')).status).toBe(204);
    // The name a PUT of the same bytes gets next.
    const viaTus = (await c.get(url, JSON_ACCEPT)).json().filename;
    const viaPut = (await c.put('/upload/taken.txt', 'second', JSON_ACCEPT)).json().filename;
    expect(viaTus).toBe('taken1.txt');
    expect(viaPut).toBe('taken2.txt');
    const rnd = await create(4, { 'upload-metadata': `filename ${b64('x.txt')}`, 'files-randomize': 'yes' });
    expect((await patch(rnd, 0, 'rand')).status).toBe(204);
    expect((await c.get(rnd, JSON_ACCEPT)).json().filename).toMatch(/^[a-z0-9]{8}\.txt$/);
  });

  it('creation-with-upload stores the body of the POST', async () => {
    const r = await c.req('POST', '/upload/resumable', {
      headers: { ...OCTETS, 'upload-length': '10', 'upload-metadata': `filename ${b64('cwu.txt')}` },
      body: 'hello',
    });
    expect(r.status).toBe(201);
    expect(r.headers['upload-offset']).toBe('5');
    const url = pathOf(r.headers.location);
    expect((await patch(url, 5, 'world')).status).toBe(204);
    expect((await c.get('/selif/cwu.txt')).text).toBe('helloworld');
  });

  it('refuses: 412 without Tus-Resumable, 413 over the limit or past the end, 400, 415, 409', async () => {
    let r = await c.req('POST', '/upload/resumable', { headers: { 'upload-length': '10' } });
    expect(r.status).toBe(412);
    expect(r.headers['tus-version']).toBe('1.0.0');
    r = await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': String(4 * 1024 * 1024 + 1) } });
    expect(r.status).toBe(413);
    expect(r.text).toBe('File too large\n');
    r = await c.req('POST', '/upload/resumable', { headers: TUS });
    expect(r.status).toBe(400);
    r = await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': '-1' } });
    expect(r.status).toBe(400);
    r = await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-defer-length': '1' } });
    expect(r.status).toBe(400);

    const url = await create(10);
    r = await c.req('PATCH', url, { headers: { ...TUS, 'upload-offset': '0' }, body: 'abc' });
    expect(r.status).toBe(415);
    r = await patch(url, 0, 'abc', { 'tus-resumable': '0.2.2' });
    expect(r.status).toBe(412);
    r = await patch(url, 3, 'abc');
    expect(r.status).toBe(409);
    r = await c.req('PATCH', url, { headers: OCTETS, body: 'abc' });
    expect(r.status).toBe(400);
    r = await patch(url, 0, 'abcdefghijk');
    expect(r.status).toBe(413);
    const h = await c.req('HEAD', url, { headers: TUS });
    expect(h.headers['upload-offset']).toBe('0');
    expect((await c.req('HEAD', '/upload/resumable/nope', { headers: TUS })).status).toBe(404);
    expect((await patch('/upload/resumable/nope', 0, 'x')).status).toBe(404);
  });

  it('checks Upload-Checksum (sha256): a mismatch is 460 and stores nothing', async () => {
    const url = await create(6);
    const sum = (b: string) => `sha256 ${crypto.createHash('sha256').update(b).digest('base64')}`;
    let r = await patch(url, 0, 'abc', { 'upload-checksum': sum('abd') });
    expect(r.status).toBe(460);
    expect((await c.req('HEAD', url, { headers: TUS })).headers['upload-offset']).toBe('0');
    r = await patch(url, 0, 'abc', { 'upload-checksum': 'md5 AAAA' });
    expect(r.status).toBe(400);
    r = await patch(url, 0, 'abc', { 'upload-checksum': sum('abc') });
    expect(r.status).toBe(204);
    expect(r.headers['upload-offset']).toBe('3');
  });

  it('an interrupted PATCH keeps what arrived; the next HEAD tells it and the upload continues', async () => {
    const bytes = crypto.randomBytes(3 * 1024 * 1024);
    const url = await create(bytes.length, { 'upload-metadata': `filename ${b64('broken.bin')}` });
    const sent = 1024 * 1024 + 12345;
    await new Promise<void>((resolve) => {
      const req = http.request(new URL(url, s.url), {
        method: 'PATCH',
        headers: { ...OCTETS, 'upload-offset': '0', 'content-length': String(bytes.length) },
      });
      req.on('error', () => resolve());
      req.write(bytes.subarray(0, sent), () => setTimeout(() => req.destroy(), 200));
    });
    let offset = 0;
    await eventually(async () => {
      const h = await c.req('HEAD', url, { headers: TUS });
      offset = Number(h.headers['upload-offset']);
      expect(offset).toBe(sent);
      // The server records them once it has seen the connection break and synced them: seconds on a
      // busy machine.
    }, 20_000);
    // The broken PATCH frees the upload's lease just after recording its offset: until then the next
    // PATCH is told 423 (locked), and a tus client retries it, as here.
    let r = await patch(url, offset, bytes.subarray(offset));
    for (let i = 0; r.status === 423 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await patch(url, offset, bytes.subarray(offset));
    }
    expect(r.status).toBe(204);
    // The SHA-256 of the bytes stored, though one request broke off midway (running hash or read back).
    const sha = crypto.createHash('sha256').update(bytes).digest('hex');
    expect((await c.get(url, JSON_ACCEPT)).json().sha256sum).toBe(sha);
    const dl = await c.get('/selif/broken.bin');
    expect(dl.body.equals(bytes)).toBe(true);
  });

  it('one writer at a time: of 100 concurrent PATCHes one writes, the others get 409 or 423', async () => {
    const url = await create(100);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => patch(url, 0, Buffer.alloc(100, i % 256))));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 204)).toHaveLength(1);
    expect(statuses.every((x) => x === 204 || x === 409 || x === 423)).toBe(true);
    const g = (await c.get(url, JSON_ACCEPT)).json();
    const dl = await c.get(`/selif/${g.filename}`);
    // One request's bytes, never interleaved.
    expect(new Set(dl.body).size).toBe(1);
  });

  it('a PATCH while another one writes is 423', async () => {
    const url = await create(2000);
    const slow = http.request(new URL(url, s.url), {
      method: 'PATCH',
      headers: { ...OCTETS, 'upload-offset': '0', 'content-length': '2000' },
    });
    slow.on('error', () => {});
    slow.write(Buffer.alloc(1000, 1));
    // Once the slow request holds the upload's lease, another PATCH is refused with 423.
    const uploads = s.agora.db.conn.collection('resumable_uploads');
    await eventually(async () => expect(await uploads.countDocuments({ lockOwner: { $ne: null } })).toBe(1));
    const r = await patch(url, 0, Buffer.alloc(2000, 2));
    expect(r.status).toBe(423);
    expect(r.text).toBe('Upload locked by another request\n');
    const done = new Promise<number>((resolve) => slow.on('response', (res) => resolve(res.statusCode!)));
    slow.end(Buffer.alloc(1000, 1));
    expect(await done).toBe(204);
  });

  it('DELETE terminates: 204, then 404, and the bytes are gone', async () => {
    const url = await create(100);
    expect((await patch(url, 0, Buffer.alloc(50))).status).toBe(204);
    expect(await partialBytes(s)).toBeGreaterThanOrEqual(50);
    const before = await partialBytes(s);
    const r = await c.req('DELETE', url, { headers: TUS });
    expect(r.status).toBe(204);
    expect(r.headers['tus-resumable']).toBe('1.0.0');
    expect((await c.req('HEAD', url, { headers: TUS })).status).toBe(404);
    expect(await partialBytes(s)).toBe(before - 50);
  });
});

describe.each(BACKENDS)('resumable upload limits on %s', (backend) => {
  it('unfinished uploads expire (410) and the sweeper removes their bytes', async () => {
    const s = await startFor(backend, { FILES_RESUMABLE_EXPIRY: '1' });
    try {
      const c = client(s);
      const r = await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': '100' } });
      const url = pathOf(r.headers.location);
      expect(new Date(String(r.headers['upload-expires'])).getTime()).toBeLessThan(Date.now() + 2000);
      expect(
        (await c.req('PATCH', url, { headers: { ...OCTETS, 'upload-offset': '0' }, body: 'x'.repeat(40) })).status,
      ).toBe(204);
      expect(await partialBytes(s)).toBe(40);
      await new Promise((res) => setTimeout(res, 1500));
      expect((await c.req('HEAD', url, { headers: TUS })).status).toBe(410);
      expect((await c.req('PATCH', url, { headers: { ...OCTETS, 'upload-offset': '40' }, body: 'y' })).status).toBe(
        410,
      );
      expect(await s.agora.services.files.resumable.sweepExpired()).toBe(1);
      expect(await partialBytes(s)).toBe(0);
      expect((await c.req('HEAD', url, { headers: TUS })).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it(`a crowd of PATCHes on one upload from one address is told 409 or 423, never the address's 429: \
only the writer takes an upload slot`, async () => {
    const s = await startFor(backend, { FILES_MAX_UPLOADS_PER_ADDRESS: '2' });
    try {
      const c = client(s);
      const r = await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': '100' } });
      const url = pathOf(r.headers.location);
      const statuses = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const res = await c.req('PATCH', url, {
            headers: { ...OCTETS, 'upload-offset': '0' },
            body: Buffer.alloc(100, i % 256),
          });
          return res.status;
        }),
      );
      expect(statuses.filter((x) => x === 204)).toHaveLength(1);
      expect(statuses.filter((x) => x !== 204 && x !== 409 && x !== 423)).toEqual([]);
      await eventually(() => expect(s.agora.services.files.uploads.inProgress).toBe(0));
    } finally {
      await s.close();
    }
  });

  it('the files sweep (FILES_CLEANUP_INTERVAL) removes expired uploads and their bytes by itself', async () => {
    const s = await startFor(backend, { FILES_RESUMABLE_EXPIRY: '1', FILES_CLEANUP_INTERVAL: '1' });
    try {
      const c = client(s);
      const r = await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': '100' } });
      const url = pathOf(r.headers.location);
      const body = 'x'.repeat(40);
      expect((await c.req('PATCH', url, { headers: { ...OCTETS, 'upload-offset': '0' }, body })).status).toBe(204);
      expect(await partialBytes(s)).toBe(40);
      await eventually(async () => {
        expect((await c.req('HEAD', url, { headers: TUS })).status).toBe(404);
        expect(await partialBytes(s)).toBe(0);
      }, 10_000);
    } finally {
      await s.close();
    }
  });

  it('FILES_REQUIRE_API_KEY: creation needs the credentials of PUT', async () => {
    const s = await startFor(backend, { FILES_REQUIRE_API_KEY: 'true' });
    try {
      const c = client(s);
      const r = await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': '10' } });
      expect(r.status).toBe(401);
      const { key } = await s.agora.services.files.apiKeys.create('resumable test');
      const ok = await c.req('POST', '/upload/resumable', {
        headers: { ...TUS, 'upload-length': '10', 'files-api-key': key },
      });
      expect(ok.status).toBe(201);
    } finally {
      await s.close();
    }
  });

  it('the per-address share applies to PATCHes: beyond it 429', async () => {
    const s = await startFor(backend, { FILES_MAX_UPLOADS_PER_ADDRESS: '1' });
    try {
      const c = client(s);
      const a = pathOf(
        (await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': '100' } })).headers.location,
      );
      const b = pathOf(
        (await c.req('POST', '/upload/resumable', { headers: { ...TUS, 'upload-length': '100' } })).headers.location,
      );
      const slow = http.request(new URL(a, s.url), {
        method: 'PATCH',
        headers: { ...OCTETS, 'upload-offset': '0', 'content-length': '100' },
      });
      slow.on('error', () => {});
      slow.write(Buffer.alloc(10));
      await eventually(() => expect(s.agora.services.files.uploads.inProgress).toBe(1));
      const r = await c.req('PATCH', b, { headers: { ...OCTETS, 'upload-offset': '0' }, body: Buffer.alloc(100) });
      expect(r.status).toBe(429);
      expect(r.text).toBe('Too many uploads in progress from this address, try again shortly\n');
      const done = new Promise<number>((resolve) => slow.on('response', (res) => resolve(res.statusCode!)));
      slow.end(Buffer.alloc(90));
      expect(await done).toBe(204);
    } finally {
      await s.close();
    }
  });
});
