/**
 * Information, raw files, access keys, delete, expiry and routes over real HTTP (docs/files-api.md §1, §2.4,
 * §6–9, §11).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { BACKENDS, client, JSON_ACCEPT, metadata, startFor, storeCounts, TEST_CONTENT, TEST_SHA } from './helpers';

const BASE = 'https://files.example.org';
const PAGE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'self';";
const RAW_CSP =
  "default-src 'none'; img-src 'self'; object-src 'self'; media-src 'self'; style-src 'self' " +
  "'unsafe-inline'; frame-ancestors 'self'; sandbox";
const ETAG = `"${TEST_SHA}"`;
const SIXTEEN = '0123456789abcdef';

describe.each(BACKENDS)('reads on %s', (backend) => {
  let s: TestServer;
  let c: ReturnType<typeof client>;
  let f: Factory;
  beforeAll(async () => {
    s = await startFor(backend, { PUBLIC_URL: BASE, FILES_ACCESS_COOKIE_EXPIRY: '0' });
    c = client(s);
    f = new Factory(s);
    await f.upload('notes.txt', TEST_CONTENT, { 'files-delete-key': 'dk' });
    await f.upload('sixteen.txt', SIXTEEN);
  });
  afterAll(async () => {
    await s?.close();
  });

  describe('information (§7)', () => {
    it('exactly six string keys in order, no trailing newline, Vary and Cache-Control', async () => {
      const r = await c.get('/notes.txt', JSON_ACCEPT);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers.vary).toBe('Accept');
      expect(r.headers['cache-control']).toBe('public, no-cache');
      expect(r.text).toBe(
        `{"direct_url":"${BASE}/selif/notes.txt","expiry":"0","filename":"notes.txt","mimetype":"text/plain; ` +
          `charset=utf-8","sha256sum":"${TEST_SHA}","size":"23"}`,
      );
    });

    it('follows the JSON preference of the Accept header', async () => {
      expect((await c.get('/notes.txt', { accept: 'text/html;q=0.9, application/json' })).headers['content-type']).toBe(
        'application/json; charset=utf-8',
      );
      for (const accept of ['text/plain, application/json', '*/*', 'application/json;q=0.5, text/plain']) {
        const r = await c.get('/notes.txt', { accept });
        expect(r.text).toBe(TEST_CONTENT);
      }
      expect((await c.get('/notes.txt')).text).toBe(TEST_CONTENT);
    });

    it('HEAD sends the same headers without a body', async () => {
      const get = await c.get('/notes.txt', JSON_ACCEPT);
      const head = await c.head('/notes.txt', JSON_ACCEPT);
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers['content-length']).toBe(String(get.body.length));
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
    });

    it('404 File not found for unknown or impossible names', async () => {
      for (const name of ['nope.txt', 'NOTES.TXT', 'a%2Fb.txt', 'no_dot', 'x%20y.txt']) {
        expect(await c.get(`/${name}`, JSON_ACCEPT)).toMatchObject({ status: 404, text: '{"error":"File not found"}' });
        expect(await c.get(`/${name}`)).toMatchObject({ status: 404, text: 'File not found\n' });
        expect(await c.get(`/selif/${name}`)).toMatchObject({ status: 404, text: 'File not found\n' });
      }
    });
  });

  describe('raw file (§8)', () => {
    it('200 with every header of §8.1 from /selif/ and from /{name}', async () => {
      for (const path of ['/selif/notes.txt', '/notes.txt']) {
        const r = await c.get(path);
        expect(r.status).toBe(200);
        expect(r.text).toBe(TEST_CONTENT);
        expect(r.headers).toMatchObject({
          'content-type': 'text/plain; charset=utf-8',
          'content-length': '23',
          etag: ETAG,
          'cache-control': 'public, no-cache',
          'accept-ranges': 'bytes',
          'content-security-policy': RAW_CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'same-origin',
          'x-frame-options': 'SAMEORIGIN',
        });
        expect(Date.parse(r.headers['last-modified']!)).toBeLessThanOrEqual(Date.now());
        expect(r.headers['content-disposition']).toBeUndefined();
      }
      expect((await c.get('/notes.txt')).headers.vary).toBe('Accept');
    });

    it('HEAD: same headers, no body', async () => {
      const r = await c.head('/selif/notes.txt');
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(0);
      expect(r.headers).toMatchObject({
        'content-length': '23',
        etag: ETAG,
        'content-type': 'text/plain; charset=utf-8',
      });
    });

    it('Range: bytes=0-3 on a 16-byte file → 206 with 4 bytes', async () => {
      const r = await c.get('/selif/sixteen.txt', { range: 'bytes=0-3' });
      expect(r.status).toBe(206);
      expect(r.headers['content-range']).toBe('bytes 0-3/16');
      expect(r.headers['content-length']).toBe('4');
      expect(r.text).toBe('0123');
    });

    it('suffix, open and capped ranges', async () => {
      expect(await c.get('/selif/sixteen.txt', { range: 'bytes=-4' })).toMatchObject({ status: 206, text: 'cdef' });
      expect(await c.get('/selif/sixteen.txt', { range: 'bytes=10-' })).toMatchObject({ status: 206, text: 'abcdef' });
      const capped = await c.get('/selif/sixteen.txt', { range: 'bytes=14-100' });
      expect([capped.status, capped.headers['content-range'], capped.text]).toEqual([206, 'bytes 14-15/16', 'ef']);
      const whole = await c.get('/selif/sixteen.txt', { range: 'bytes=-100' });
      expect([whole.status, whole.headers['content-range'], whole.text]).toEqual([206, 'bytes 0-15/16', SIXTEEN]);
      const head = await c.head('/selif/sixteen.txt', { range: 'bytes=2-5' });
      expect([head.status, head.headers['content-length'], head.body.length]).toEqual([206, '4', 0]);
    });

    it('416 Range not satisfiable with Content-Range: bytes */size', async () => {
      for (const range of ['bytes=16-', 'bytes=-0', 'bytes=100-200']) {
        const r = await c.get('/selif/sixteen.txt', { range });
        expect([r.status, r.text, r.headers['content-range']]).toEqual([416, 'Range not satisfiable\n', 'bytes */16']);
      }
      expect((await c.get('/selif/sixteen.txt', { range: 'bytes=16-', ...JSON_ACCEPT })).text).toBe(
        '{"error":"Range not satisfiable"}',
      );
    });

    it('other Range headers are ignored: 200 with the whole file', async () => {
      for (const range of ['bytes=0-1,4-5', 'items=0-3', 'bytes=5-2', 'garbage']) {
        const r = await c.get('/selif/sixteen.txt', { range });
        expect([r.status, r.text]).toEqual([200, SIXTEEN]);
      }
    });

    it('If-Range: honoured with the ETag or the exact Last-Modified, otherwise the whole file', async () => {
      const info = await c.get('/selif/sixteen.txt');
      const etag = info.headers.etag!;
      const lm = info.headers['last-modified']!;
      expect((await c.get('/selif/sixteen.txt', { range: 'bytes=0-3', 'if-range': etag })).status).toBe(206);
      expect((await c.get('/selif/sixteen.txt', { range: 'bytes=0-3', 'if-range': lm })).status).toBe(206);
      expect((await c.get('/selif/sixteen.txt', { range: 'bytes=0-3', 'if-range': '"other"' })).status).toBe(200);
      expect(
        (
          await c.get('/selif/sixteen.txt', {
            range: 'bytes=0-3',
            'if-range': new Date(Date.parse(lm) - 1000).toUTCString(),
          })
        ).status,
      ).toBe(200);
    });

    it('304 for If-None-Match (strong, weak, *) and If-Modified-Since, with validators and no body', async () => {
      const lm = (await c.get('/notes.txt')).headers['last-modified']!;
      const conditions: Record<string, string>[] = [
        { 'if-none-match': ETAG },
        { 'if-none-match': `W/${ETAG}` },
        { 'if-none-match': '*' },
        { 'if-modified-since': lm },
      ];
      for (const h of conditions) {
        const r = await c.get('/notes.txt', h);
        expect(r.status).toBe(304);
        expect(r.body.length).toBe(0);
        expect(r.headers).toMatchObject({
          etag: ETAG,
          'last-modified': lm,
          'cache-control': 'public, no-cache',
          vary: 'Accept',
          'x-frame-options': 'SAMEORIGIN',
        });
      }
      expect((await c.get('/notes.txt', { 'if-none-match': '"other"' })).status).toBe(200);
      expect(
        (await c.get('/notes.txt', { 'if-modified-since': new Date(Date.parse(lm) - 1000).toUTCString() })).status,
      ).toBe(200);
      expect((await c.get('/notes.txt', { 'if-none-match': '"other"', 'if-modified-since': lm })).status).toBe(200);
    });

    it('412 for If-Match without a strong match and for If-Unmodified-Since before Last-Modified', async () => {
      const lm = (await c.get('/notes.txt')).headers['last-modified']!;
      expect(await c.get('/selif/notes.txt', { 'if-match': '"other"' })).toMatchObject({
        status: 412,
        text: 'Precondition failed\n',
      });
      expect((await c.get('/selif/notes.txt', { 'if-match': `W/${ETAG}` })).status).toBe(412);
      expect((await c.get('/selif/notes.txt', { 'if-match': ETAG })).status).toBe(200);
      expect((await c.get('/selif/notes.txt', { 'if-match': '*' })).status).toBe(200);
      expect(
        await c.get('/selif/notes.txt', {
          'if-unmodified-since': new Date(Date.parse(lm) - 1000).toUTCString(),
          ...JSON_ACCEPT,
        }),
      ).toMatchObject({
        status: 412,
        text: '{"error":"Precondition failed"}',
      });
      expect((await c.get('/selif/notes.txt', { 'if-unmodified-since': lm })).status).toBe(200);
      // 412 is evaluated before 304.
      expect((await c.get('/selif/notes.txt', { 'if-match': '"other"', 'if-none-match': ETAG })).status).toBe(412);
    });

    it('serves larger files intact, and ranges deep inside them', async () => {
      const big = Buffer.alloc(3 * 1024 * 1024 + 123);
      for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 10)) & 0xff;
      await f.upload('big.bin', big);
      const r = await c.get('/selif/big.bin');
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/octet-stream');
      expect(Buffer.compare(r.body, big)).toBe(0);
      const part = await c.get('/selif/big.bin', { range: 'bytes=1048570-2097160' });
      expect(part.status).toBe(206);
      expect(Buffer.compare(part.body, big.subarray(1048570, 2097161))).toBe(0);
    });
  });

  describe('access keys (§9)', () => {
    beforeAll(async () => {
      await f.upload('sec.txt', TEST_CONTENT, { 'files-access-key': 'pw 1/ü', 'files-delete-key': 'sk' });
    });
    const enc = encodeURIComponent('pw 1/ü');

    it('without the key: 401 Invalid access key on info and raw', async () => {
      expect(await c.get('/selif/sec.txt')).toMatchObject({ status: 401, text: 'Invalid access key\n' });
      expect(await c.get('/sec.txt', JSON_ACCEPT)).toMatchObject({
        status: 401,
        text: '{"error":"Invalid access key"}',
      });
      expect((await c.get('/selif/sec.txt', { 'files-access-key': 'wrong' })).status).toBe(401);
    });

    it('from the header, the query, a url-encoded body or the cookie', async () => {
      expect(await c.get('/selif/sec.txt', { 'files-access-key': 'pw 1/ü' })).toMatchObject({
        status: 200,
        text: TEST_CONTENT,
      });
      expect(await c.get('/selif/sec.txt', { 'linx-access-key': 'pw 1/ü' })).toMatchObject({ status: 200 });
      expect(await c.get(`/selif/sec.txt?access_key=${enc}`)).toMatchObject({ status: 200, text: TEST_CONTENT });
      const body = await c.req('GET', '/selif/sec.txt', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `access_key=${enc}`,
      });
      expect(body).toMatchObject({ status: 200, text: TEST_CONTENT });
      expect(await c.get('/selif/sec.txt', { cookie: `Files-Access-Key=${enc}` })).toMatchObject({ status: 200 });
      expect(await c.get('/selif/sec.txt', { cookie: `Linx-Access-Key=${enc}` })).toMatchObject({ status: 200 });
    });

    it('the first non-empty source decides: cookie, header, body, query', async () => {
      expect((await c.get(`/selif/sec.txt?access_key=${enc}`, { 'files-access-key': 'wrong' })).status).toBe(401);
      expect((await c.get(`/selif/sec.txt?access_key=wrong`, { 'files-access-key': 'pw 1/ü' })).status).toBe(200);
      expect(
        (await c.get('/selif/sec.txt', { cookie: 'Files-Access-Key=wrong', 'files-access-key': 'pw 1/ü' })).status,
      ).toBe(401);
      expect(
        (await c.get('/selif/sec.txt', { cookie: 'Files-Access-Key=', 'files-access-key': 'pw 1/ü' })).status,
      ).toBe(200);
      const emptyFirst = { 'files-access-key': '', 'linx-access-key': 'pw 1/ü' };
      expect((await c.get('/selif/sec.txt', emptyFirst)).status).toBe(401);
    });

    it('a successful read of /{name} with the key from header or query sets the cookie for both paths', async () => {
      for (const r of [
        await c.get('/sec.txt', { 'files-access-key': 'pw 1/ü' }),
        await c.get(`/sec.txt?access_key=${enc}`, JSON_ACCEPT),
      ]) {
        expect(r.status).toBe(200);
        expect(r.headers['set-cookie']).toEqual([
          `Files-Access-Key=${enc}; Path=/sec.txt; HttpOnly`,
          `Files-Access-Key=${enc}; Path=/selif/sec.txt; HttpOnly`,
        ]);
        expect(r.headers['cache-control']).toBe('private, no-cache');
      }
      expect((await c.get('/selif/sec.txt', { 'files-access-key': 'pw 1/ü' })).headers['set-cookie']).toBeUndefined();
      expect((await c.get('/sec.txt', { cookie: `Files-Access-Key=${enc}` })).headers['set-cookie']).toBeUndefined();
    });

    it('a wrong cookie is cleared by the 401', async () => {
      const r = await c.get('/selif/sec.txt', { cookie: 'Files-Access-Key=wrong' });
      expect(r.status).toBe(401);
      expect(r.headers['set-cookie']).toEqual([
        'Files-Access-Key=; Path=/sec.txt; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly',
        'Files-Access-Key=; Path=/selif/sec.txt; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly',
      ]);
      expect((await c.get('/selif/sec.txt', { 'files-access-key': 'wrong' })).headers['set-cookie']).toBeUndefined();
    });

    it('DELETE needs no access key', async () => {
      await f.upload('sec-del.txt', 'x', { 'files-access-key': 'a', 'files-delete-key': 'd' });
      expect(await c.del('/sec-del.txt', { 'files-delete-key': 'd' })).toMatchObject({ status: 200, text: 'DELETED' });
    });
  });

  describe('delete (§6)', () => {
    it(`404 for an unknown file, 401 for a missing or wrong key, 200 DELETED (no newline) whatever \
Accept`, async () => {
      await f.upload('del.txt', 'bye', { 'files-delete-key': 'right' });
      expect(await c.del('/nope.txt', { 'files-delete-key': 'x' })).toMatchObject({
        status: 404,
        text: 'File not found\n',
      });
      expect(await c.del('/del.txt')).toMatchObject({ status: 401, text: 'Invalid delete key\n' });
      expect(await c.del('/del.txt', { 'files-delete-key': '' })).toMatchObject({ status: 401 });
      expect(await c.del('/del.txt', { 'files-delete-key': 'wrong', ...JSON_ACCEPT })).toMatchObject({
        status: 401,
        text: '{"error":"Invalid delete key"}',
      });
      const ok = await c.del('/del.txt', { 'linx-delete-key': 'right', ...JSON_ACCEPT });
      expect([ok.status, ok.text, ok.headers['content-type']]).toEqual([200, 'DELETED', 'text/plain; charset=utf-8']);
    });

    it('afterwards info, raw and DELETE answer 404 and the name is free', async () => {
      expect((await c.get('/del.txt', JSON_ACCEPT)).status).toBe(404);
      expect((await c.get('/selif/del.txt')).status).toBe(404);
      expect((await c.del('/del.txt', { 'files-delete-key': 'right' })).status).toBe(404);
      expect((await f.upload('del.txt', 'again')).filename).toBe('del.txt');
    });

    it('removes bytes and metadata', async () => {
      await f.upload('gone.txt', 'bytes', { 'files-delete-key': 'k' });
      const before = await storeCounts(s);
      await c.del('/gone.txt', { 'files-delete-key': 'k' });
      expect(await metadata(s)).not.toContainEqual(expect.objectContaining({ filename: 'gone.txt' }));
      expect((await storeCounts(s)).objects).toBe(before.objects - 1);
    });
  });

  describe('expiry (§11)', () => {
    it('an expired file answers 404 on info and raw and is deleted', async () => {
      await f.upload('old.txt', 'old', { 'files-delete-key': 'k' });
      await f.setExpiry('old.txt', Math.floor(Date.now() / 1000) - 5);
      expect(await c.get('/selif/old.txt')).toMatchObject({ status: 404, text: 'File not found\n' });
      expect(await metadata(s)).not.toContainEqual(expect.objectContaining({ filename: 'old.txt' }));
      await f.upload('old2.txt', 'old', { 'files-delete-key': 'k' });
      await f.setExpiry('old2.txt', 1);
      expect((await c.get('/old2.txt', JSON_ACCEPT)).status).toBe(404);
      expect((await f.upload('old2.txt', 'new')).filename).toBe('old2.txt');
    });

    it('until deleted, an expired file takes its name, can be overwritten and deleted with its key', async () => {
      await f.upload('exp.txt', 'x', { 'files-delete-key': 'k' });
      await f.setExpiry('exp.txt', 1);
      expect((await f.upload('exp.txt', 'y')).filename).toBe('exp1.txt');
      expect((await f.upload('exp.txt', 'z', { 'files-delete-key': 'k' })).filename).toBe('exp.txt');
      expect((await c.get('/selif/exp.txt')).text).toBe('z');
      await f.setExpiry('exp.txt', 1);
      expect((await c.del('/exp.txt', { 'files-delete-key': 'k' })).text).toBe('DELETED');
    });

    it('the sweeper deletes every expired file', async () => {
      await f.upload('sweep1.txt', 'a');
      await f.upload('sweep2.txt', 'b');
      await f.setExpiry('sweep1.txt', 1);
      await f.setExpiry('sweep2.txt', 1);
      expect(await s.agora.services.files.maintenance.sweepExpired()).toBeGreaterThanOrEqual(2);
      const names = (await metadata(s)).map((d) => d.filename);
      expect(names).not.toContain('sweep1.txt');
      expect(names).not.toContain('sweep2.txt');
    });
  });

  describe('routes and common headers (§1, §2.4)', () => {
    it('OPTIONS answers 200 with Allow on every path', async () => {
      const cases: [string, string][] = [
        ['/upload', 'OPTIONS, POST, PUT'],
        ['/upload/', 'OPTIONS, POST, PUT'],
        ['/upload/x.txt', 'OPTIONS, PUT'],
        ['/notes.txt', 'DELETE, GET, HEAD, OPTIONS'],
        ['/selif/notes.txt', 'GET, HEAD, OPTIONS'],
      ];
      for (const [path, allow] of cases) {
        const r = await c.req('OPTIONS', path);
        expect([r.status, r.headers.allow, r.body.length]).toEqual([200, allow, 0]);
      }
    });

    it('other methods on these paths → 404 Not found', async () => {
      const cases: [string, string][] = [
        ['PATCH', '/upload'],
        ['GET', '/upload'],
        ['DELETE', '/upload/'],
        ['POST', '/upload/x.txt'],
        ['POST', '/notes.txt'],
        ['PATCH', '/notes.txt'],
        ['PUT', '/notes.txt'],
        ['DELETE', '/selif/notes.txt'],
        ['POST', '/selif/notes.txt'],
        // Deeper paths under the files API's own prefixes are its own too (no file name holds a '/').
        ['PUT', '/upload//x.txt'],
        ['PUT', '/upload/a/x.txt'],
        ['GET', '/selif/a/notes.txt'],
      ];
      for (const [method, path] of cases) {
        const r = await c.req(method, path, { headers: JSON_ACCEPT });
        expect([method, path, r.status, r.text]).toEqual([method, path, 404, '{"error":"Not found"}']);
      }
      expect((await c.req('PATCH', '/upload')).text).toBe('Not found\n');
      const deep = await c.req('PUT', '/upload//x.txt', { body: 'x' });
      expect([deep.status, deep.text, deep.headers['referrer-policy']]).toEqual([404, 'Not found\n', 'same-origin']);
    });

    it('every response carries Referrer-Policy and X-Frame-Options; non-raw ones the page CSP', async () => {
      const responses = [
        await c.get('/notes.txt', JSON_ACCEPT),
        await c.get('/nope.txt'),
        await c.req('OPTIONS', '/upload'),
        await c.put('/upload/h.txt', 'x'),
      ];
      for (const r of responses) {
        expect(r.headers['referrer-policy']).toBe('same-origin');
        expect(r.headers['x-frame-options']).toBe('SAMEORIGIN');
        expect(r.headers['content-security-policy']).toBe(PAGE_CSP);
      }
      for (const method of ['GET', 'HEAD', 'DELETE', 'OPTIONS', 'POST', 'PATCH'])
        expect([method, (await c.req(method, '/nope.txt')).headers.vary]).toEqual([method, 'Accept']);
    });

    it('the server routes win over /{filename}', async () => {
      expect((await c.get('/healthz')).json()).toEqual({ status: 'ok' });
    });
  });
});

describe('base URL without PUBLIC_URL (§2.3)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor('disk', { TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('uses the Host header, and X-Forwarded-* behind a trusted proxy', async () => {
    const c = client(s);
    const plain = await c.put('/upload/b.txt', 'x', { host: 'example.test:8080' });
    expect(plain.text).toBe('http://example.test:8080/b.txt\n');
    const proxied = await c.put('/upload/c.txt', 'x', {
      host: 'internal',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'files.example.org',
      ...JSON_ACCEPT,
    });
    expect(proxied.json()).toMatchObject({
      url: 'https://files.example.org/c.txt',
      direct_url: 'https://files.example.org/selif/c.txt',
    });
  });
});

describe('FILES_ACCESS_COOKIE_EXPIRY (§9)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor('disk', { FILES_ACCESS_COOKIE_EXPIRY: '3600' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('adds Max-Age to the access-key cookies', async () => {
    const c = client(s);
    const f = new Factory(s);
    await f.upload('aged.txt', 'x', { 'files-access-key': 'k&1' });
    const r = await c.get('/aged.txt?access_key=k%261');
    expect(r.status).toBe(200);
    expect(r.headers['set-cookie']).toEqual([
      'Files-Access-Key=k%261; Path=/aged.txt; Max-Age=3600; HttpOnly',
      'Files-Access-Key=k%261; Path=/selif/aged.txt; Max-Age=3600; HttpOnly',
    ]);
    expect((await c.get('/selif/aged.txt', { cookie: 'Files-Access-Key=k%261' })).text).toBe('x');
  });
});

describe.each(BACKENDS)('files larger than the read size on %s', (backend) => {
  // Over 1 MiB, not a multiple of it: streamed from the store (on disk through reused read buffers).
  const big = crypto.randomBytes(3 * 1024 * 1024 + 17);
  const sha = crypto.createHash('sha256').update(big).digest('hex');
  let s: TestServer;
  let c: ReturnType<typeof client>;
  let f: Factory;
  beforeAll(async () => {
    s = await startFor(backend);
    c = client(s);
    f = new Factory(s);
    await f.upload('big.bin', big);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('whole file: every byte and the raw-file headers', async () => {
    const r = await c.get('/selif/big.bin');
    expect(r.status).toBe(200);
    expect(r.body.equals(big)).toBe(true);
    expect(r.headers).toMatchObject({
      'content-length': String(big.length),
      etag: `"${sha}"`,
      'accept-ranges': 'bytes',
      'cache-control': 'public, no-cache',
      'content-security-policy': RAW_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'x-frame-options': 'SAMEORIGIN',
    });
    expect(r.headers['last-modified']).toBeDefined();
    expect((await c.get('/big.bin')).body.equals(big)).toBe(true);
  });

  it('ranges across read boundaries, and concurrent downloads', async () => {
    for (const [from, to] of [
      [1048570, 2097160],
      [0, 1048575],
      [1048576, big.length - 1],
      [big.length - 5, big.length - 1],
    ] as const) {
      const r = await c.get('/selif/big.bin', { range: `bytes=${from}-${to}` });
      expect(r.status).toBe(206);
      expect(r.headers['content-range']).toBe(`bytes ${from}-${to}/${big.length}`);
      expect(r.body.equals(big.subarray(from, to + 1))).toBe(true);
    }
    const all = await Promise.all(Array.from({ length: 6 }, () => c.get('/selif/big.bin')));
    for (const r of all) expect(r.body.equals(big)).toBe(true);
  });

  it('a client leaving mid-download does not disturb the next ones', async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const u = new URL('/selif/big.bin', s.url);
        const req = http.get({ host: u.hostname, port: u.port, path: u.pathname, agent: false }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
      });
    }
    const r = await c.get('/selif/big.bin');
    expect(r.status).toBe(200);
    expect(r.body.equals(big)).toBe(true);
    expect((await c.get('/healthz')).status).toBe(200);
  });
});
