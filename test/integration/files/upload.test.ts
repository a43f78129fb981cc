/** Uploads over real HTTP (docs/files-api.md §2, §4), on both storage backends. */
import { Readable } from 'node:stream';
import { TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { BACKENDS, client, JSON_ACCEPT, metadata, startFor, storeCounts, TEST_CONTENT, TEST_SHA } from './helpers';

const BASE = 'https://files.example.org';
const RAND = '[a-z0-9]{8}';

describe.each(BACKENDS)('uploads on %s', (backend) => {
  let s: TestServer;
  let c: ReturnType<typeof client>;
  let f: Factory;
  beforeAll(async () => {
    s = await startFor(backend, { PUBLIC_URL: `${BASE}/`, FILES_MAX_SIZE: '1000' });
    c = client(s);
    f = new Factory(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  describe('PUT', () => {
    it('answers the URL as text with a newline, from /upload/{name}', async () => {
      const r = await c.put('/upload/put-text.txt', TEST_CONTENT, { accept: '*/*' });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.text).toBe(`${BASE}/put-text.txt\n`);
    });

    it('answers JSON with exactly nine string keys in alphabetical order', async () => {
      const r = await c.put('/upload/put-json.txt', TEST_CONTENT, {
        ...JSON_ACCEPT,
        'files-delete-key': 'dk',
        'files-access-key': 'ak',
        'files-expiry': '60',
      });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.text.endsWith('}')).toBe(true);
      const j = r.json();
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
      for (const v of Object.values(j)) expect(typeof v).toBe('string');
      const now = Math.floor(Date.now() / 1000);
      expect(j).toEqual({
        access_key: 'ak',
        delete_key: 'dk',
        direct_url: `${BASE}/selif/put-json.txt`,
        expiry: expect.stringMatching(/^\d+$/),
        filename: 'put-json.txt',
        mimetype: 'text/plain; charset=utf-8',
        sha256sum: TEST_SHA,
        size: '23',
        url: `${BASE}/put-json.txt`,
      });
      expect(Math.abs(Number(j.expiry) - (now + 60))).toBeLessThanOrEqual(2);
    });

    it('/upload and /upload/ take no name: a random one with the detected extension', async () => {
      for (const path of ['/upload', '/upload/']) {
        const j = (await c.put(path, TEST_CONTENT, JSON_ACCEPT)).json();
        expect(j.filename).toMatch(new RegExp(`^${RAND}\\.txt$`));
      }
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40, 1)]);
      const j = (await c.put('/upload', png, JSON_ACCEPT)).json();
      expect(j.filename).toMatch(new RegExp(`^${RAND}\\.png$`));
      expect(j.mimetype).toBe('image/png');
    });

    it('ignores the request Content-Type and accepts chunked bodies', async () => {
      const r = await c.put(
        '/upload/ctype.txt',
        Readable.from([Buffer.from('This is my '), Buffer.from('test content')]),
        { ...JSON_ACCEPT, 'content-type': 'application/json' },
      );
      expect(r.status).toBe(200);
      expect(r.json()).toMatchObject({ filename: 'ctype.txt', mimetype: 'text/plain; charset=utf-8', size: '23' });
      const r2 = await c.put('/upload/ctype.txt', TEST_CONTENT, {
        ...JSON_ACCEPT,
        'content-type': 'multipart/form-data; boundary=x',
      });
      expect(r2.status).toBe(200);
      expect(r2.json()).toMatchObject({ filename: 'ctype1.txt', size: '23' });
      const odd = await c.put('/upload/ctype2.txt', TEST_CONTENT, { ...JSON_ACCEPT, 'content-type': 'not a type' });
      expect(odd.status).toBe(200);
    });

    it('applies the filename rules to {name} (percent-decoded, one segment)', async () => {
      const cases: [string, string | RegExp][] = [
        ['My%20File%20(1).TXT', 'myfile1.txt'],
        ['FOO.TAR.GZ', 'foo.tar.gz'],
        ['test.jpg.gz', 'testjpg.gz'],
        ['under_score-dash.Md', 'underscore-dash.md'],
        ['h%C3%A9llo.txt', 'hllo.txt'],
        ['..%2F..%2Fetc%2Fpasswd', 'etcpasswd.txt'],
        ['graphql', 'graphql.txt'],
        ['.hidden', new RegExp(`^${RAND}\\.hidden$`)],
        ['---', new RegExp(`^${RAND}\\.txt$`)],
        ['abc.%E2%9C%93', 'abc.txt'],
      ];
      for (const [name, expected] of cases) {
        const j = await f.upload(name, TEST_CONTENT);
        if (typeof expected === 'string') expect(j.filename).toBe(expected);
        else expect(j.filename).toMatch(expected);
      }
      expect((await f.upload('binthing', Buffer.from([0, 1, 2, 3]))).filename).toBe('binthing.file');
    });

    it.each(['yes', 'true', 'y', '1', 'YES', 'True'])(
      'Files-Randomize: %s randomizes and keeps the extension',
      async (v) => {
        expect((await f.upload('keepext.png', TEST_CONTENT, { 'files-randomize': v })).filename).toMatch(
          new RegExp(`^${RAND}\\.png$`),
        );
      },
    );

    it.each(['no', '0', 'maybe', ''])('Files-Randomize: %j does not', async (v) => {
      expect((await f.upload(`norand-${v || 'empty'}.txt`, TEST_CONTENT, { 'files-randomize': v })).filename).toBe(
        `norand-${v || 'empty'}.txt`,
      );
    });

    it('400 Prohibited filename for reserved names (text and JSON)', async () => {
      for (const name of ['index.html', 'robots.txt', 'favicon.ico', 'INDEX.HTML']) {
        const r = await c.put(`/upload/${name}`, TEST_CONTENT);
        expect([r.status, r.text]).toEqual([400, 'Prohibited filename\n']);
      }
      const r = await c.put('/upload/robots.txt', TEST_CONTENT, JSON_ACCEPT);
      expect([r.status, r.text]).toEqual([400, '{"error":"Prohibited filename"}']);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('400 Filename too long over 255 characters; 255 is fine', async () => {
      const r = await c.put(`/upload/${'a'.repeat(300)}.txt`, TEST_CONTENT, JSON_ACCEPT);
      expect([r.status, r.text]).toEqual([400, '{"error":"Filename too long"}']);
      expect((await f.upload(`${'b'.repeat(251)}.txt`, TEST_CONTENT)).filename).toHaveLength(255);
    });

    it('400 Empty file for an empty body, with or without Content-Length', async () => {
      expect(await c.put('/upload/empty.txt', '', JSON_ACCEPT)).toMatchObject({
        status: 400,
        text: '{"error":"Empty file"}',
      });
      const chunked = await c.req('PUT', '/upload/empty.txt', {
        headers: { 'transfer-encoding': 'chunked' },
        body: '',
      });
      expect([chunked.status, chunked.text]).toEqual([400, 'Empty file\n']);
      const none = await c.req('PUT', '/upload/empty.txt');
      expect([none.status, none.text]).toEqual([400, 'Empty file\n']);
      expect(await metadata(s)).not.toContainEqual(expect.objectContaining({ filename: 'empty.txt' }));
    });

    it('accepts exactly FILES_MAX_SIZE bytes', async () => {
      const j = await f.upload('exact.bin', Buffer.alloc(1000, 0x61));
      expect(j.size).toBe('1000');
    });

    it(`413 when Content-Length is above the limit: a body up to 1 MiB drained first, a larger one refused at \
once (Connection: close)`, async () => {
      const r = await c.put('/upload/big.txt', Buffer.alloc(1001, 0x61), JSON_ACCEPT);
      expect([r.status, r.text]).toEqual([413, '{"error":"File too large"}']);
      // (This client closes its connections itself; refusals.test.ts shows the connection kept.)
      const big = await c.put('/upload/big.txt', 'x', { ...JSON_ACCEPT, 'content-length': String(2 * 1024 * 1024) });
      expect([big.status, big.text, big.headers.connection]).toEqual([413, '{"error":"File too large"}', 'close']);
    });

    it('413 for a chunked body that passes the limit, and nothing is kept', async () => {
      const before = await storeCounts(s);
      const r = await c.req('PUT', '/upload/big-chunked.txt', {
        headers: { 'transfer-encoding': 'chunked' },
        body: Buffer.alloc(1001, 0x61),
      });
      expect([r.status, r.text]).toEqual([413, 'File too large\n']);
      expect(await metadata(s)).not.toContainEqual(expect.objectContaining({ filename: 'big-chunked.txt' }));
      expect(await storeCounts(s)).toEqual(before);
    });
  });

  describe('collisions and overwrite (§4.6)', () => {
    it('a taken name without a key gets the next free name: hello.txt → hello1.txt → hello2.txt', async () => {
      expect((await f.upload('hello.txt', 'one')).filename).toBe('hello.txt');
      expect((await f.upload('hello.txt', 'two')).filename).toBe('hello1.txt');
      expect((await f.upload('hello.txt', 'three')).filename).toBe('hello2.txt');
      expect((await c.get('/selif/hello.txt')).text).toBe('one');
    });

    it('file9.txt → file10.txt → file11.txt; v19.txt → v110.txt', async () => {
      await f.upload('file9.txt', 'x');
      expect((await f.upload('file9.txt', 'x')).filename).toBe('file10.txt');
      expect((await f.upload('file9.txt', 'x')).filename).toBe('file11.txt');
      await f.upload('v19.txt', 'x');
      expect((await f.upload('v19.txt', 'x')).filename).toBe('v110.txt');
    });

    it('a name taken 70 times: the next free names in order, and a freed one is taken again', async () => {
      const names: string[] = [];
      let key5 = '';
      for (let i = 0; i < 70; i++) {
        const j = await f.upload('many.txt', `v${i}`);
        names.push(j.filename);
        if (i === 5) key5 = j.delete_key;
      }
      // §4.6: a trailing digit d becomes d + 1, else 1 is appended (many19 → many110).
      const expected = ['many'];
      while (expected.length < 71) {
        const b = expected[expected.length - 1]!;
        const d = /\d$/.test(b) ? Number(b.slice(-1)) : -1;
        expected.push(d < 0 ? `${b}1` : `${b.slice(0, -1)}${d + 1}`);
      }
      expect(names).toEqual(expected.slice(0, 70).map((b) => `${b}.txt`));
      expect(names.slice(18, 22)).toEqual(['many18.txt', 'many19.txt', 'many110.txt', 'many111.txt']);
      expect((await c.del('/many5.txt', { 'files-delete-key': key5 })).status).toBe(200);
      expect((await f.upload('many.txt', 'again')).filename).toBe('many5.txt');
      expect((await f.upload('many.txt', 'next')).filename).toBe(`${expected[70]}.txt`);
      expect((await c.get('/selif/many5.txt')).text).toBe('again');
    });

    it('a wrong key does not overwrite: ow.txt → ow1.txt, ow.txt untouched', async () => {
      await f.upload('ow.txt', 'original', { 'files-delete-key': 'right' });
      expect((await f.upload('ow.txt', 'intruder', { 'files-delete-key': 'wrong' })).filename).toBe('ow1.txt');
      expect((await c.get('/selif/ow.txt')).text).toBe('original');
    });

    it('the right key overwrites in place and regenerates all metadata', async () => {
      const first = await f.upload('ow2.txt', 'original text', {
        'files-delete-key': 'k1',
        'files-access-key': 'secret',
        'files-expiry': '600',
      });
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(20, 2)]);
      const second = await f.upload('ow2.txt', png, { 'files-delete-key': 'k1' });
      expect(second).toMatchObject({
        filename: 'ow2.txt',
        delete_key: 'k1',
        access_key: '',
        expiry: '0',
        mimetype: 'image/png',
        size: '28',
      });
      expect(second.sha256sum).not.toBe(first.sha256sum);
      const raw = await c.get('/selif/ow2.txt');
      expect(raw.status).toBe(200); // access key removed by the overwrite
      expect(raw.body).toEqual(png);
      expect(raw.headers['cache-control']).toBe('public, no-cache');
      // The key stays the one supplied: it overwrites again, and a wrong one still does not.
      expect((await f.upload('ow2.txt', 'third', { 'files-delete-key': 'k1' })).filename).toBe('ow2.txt');
      expect((await f.upload('ow2.txt', 'fourth', { 'files-delete-key': 'k2' })).filename).toBe('ow3.txt');
    });

    it('an overwrite that fails leaves the old file intact (empty body, too large)', async () => {
      await f.upload('keep.txt', 'keep me', { 'files-delete-key': 'k' });
      expect((await c.put('/upload/keep.txt', '', { 'files-delete-key': 'k' })).status).toBe(400);
      expect(
        (
          await c.req('PUT', '/upload/keep.txt', {
            headers: { 'files-delete-key': 'k', 'transfer-encoding': 'chunked' },
            body: Buffer.alloc(1001),
          })
        ).status,
      ).toBe(413);
      expect((await c.get('/selif/keep.txt')).text).toBe('keep me');
    });

    it('5 concurrent uploads of one free name get 5 distinct names, each with its own bytes', async () => {
      const bodies = [0, 1, 2, 3, 4].map((i) => `concurrent body ${i}`);
      const results = await Promise.all(bodies.map((b) => f.upload('same.txt', b)));
      const names = results.map((r) => r.filename);
      expect(new Set(names).size).toBe(5);
      expect(names.sort()).toEqual(['same.txt', 'same1.txt', 'same2.txt', 'same3.txt', 'same4.txt']);
      for (const r of results) {
        const got = await c.get(`/selif/${r.filename}`);
        expect(bodies).toContain(got.text);
        expect(r.sha256sum).toBe(require('node:crypto').createHash('sha256').update(got.text).digest('hex'));
      }
    });

    it('the delete key is generated when not given: 30 characters of [A-Za-z0-9]', async () => {
      expect((await f.upload('gen.txt', 'x')).delete_key).toMatch(/^[A-Za-z0-9]{30}$/);
    });

    it('keys are stored only as salted hashes', async () => {
      await f.upload('hashed.txt', 'x', { 'files-delete-key': 'plain-delete', 'files-access-key': 'plain-access' });
      const doc = (await metadata(s)).find((d) => d.filename === 'hashed.txt')!;
      const serialized = JSON.stringify(doc);
      expect(serialized).not.toContain('plain-delete');
      expect(serialized).not.toContain('plain-access');
      expect(doc.deleteKeyHash).toMatch(/^scrypt\$/);
      expect(doc.accessKeyHash).toMatch(/^scrypt\$/);
    });

    it('a generated delete key is stored as its SHA-256 (§4.7) and deletes and overwrites the file', async () => {
      const key = (await f.upload('gen-sha.txt', 'x')).delete_key!;
      const doc = (await metadata(s)).find((d) => d.filename === 'gen-sha.txt')!;
      expect(doc.deleteKeyHash).toBe(
        `sha256$${require('node:crypto').createHash('sha256').update(key).digest('base64')}`,
      );
      expect(doc.accessKeyHash).toBeNull();
      expect((await f.upload('gen-sha.txt', 'y', { 'files-delete-key': key })).filename).toBe('gen-sha.txt');
      expect((await c.get('/selif/gen-sha.txt')).text).toBe('y');
      expect((await c.del('/gen-sha.txt', { 'files-delete-key': key })).status).toBe(200);
      const wrong = (await f.upload('gen-sha2.txt', 'x')).delete_key!;
      expect((await c.del('/gen-sha2.txt', { 'files-delete-key': wrong.toLowerCase() + 'x' })).status).toBe(401);
    });

    it('records stored before §4.7 (a generated key under scrypt) still delete and overwrite', async () => {
      const crypto = require('node:crypto') as typeof import('node:crypto');
      await f.upload('old-record.txt', 'x');
      const salt = crypto.randomBytes(16);
      const oldHash = (k: string) =>
        `scrypt$${salt.toString('base64')}$` +
        crypto.scryptSync(k, salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64');
      const files = s.agora.db.conn.collection('files');
      await files.updateOne(
        { filename: 'old-record.txt' },
        { $set: { deleteKeyHash: oldHash('OldGeneratedKey0123456789abcde'), accessKeyHash: oldHash('old-access') } },
      );
      f.forgetCached('old-record.txt');
      expect((await c.get('/selif/old-record.txt')).status).toBe(401);
      expect((await c.get('/selif/old-record.txt', { 'files-access-key': 'old-access' })).text).toBe('x');
      expect(
        (await f.upload('old-record.txt', 'z', { 'files-delete-key': 'OldGeneratedKey0123456789abcde' })).filename,
      ).toBe('old-record.txt');
      expect((await c.del('/old-record.txt', { 'files-delete-key': 'OldGeneratedKey0123456789abcde' })).status).toBe(
        200,
      );
    });
  });

  describe('Linx-* aliases (§2.1)', () => {
    it('accepts Linx-Delete-Key, Linx-Expiry, Linx-Access-Key, Linx-Randomize', async () => {
      const j = await f.upload('alias.txt', 'x', {
        'linx-delete-key': 'lk',
        'linx-expiry': '60',
        'linx-access-key': 'la',
      });
      expect(j).toMatchObject({ delete_key: 'lk', access_key: 'la' });
      expect(Number(j.expiry)).toBeGreaterThan(0);
      expect((await f.upload('alias2.png', 'x', { 'linx-randomize': 'yes' })).filename).toMatch(
        new RegExp(`^${RAND}\\.png$`),
      );
    });

    it('Files-* wins over Linx-* even when empty', async () => {
      const j = await f.upload('alias3.txt', 'x', { 'files-delete-key': '', 'linx-delete-key': 'linx' });
      expect(j.delete_key).not.toBe('linx');
      expect(j.delete_key).toMatch(/^[A-Za-z0-9]{30}$/);
      expect(
        (await f.upload('alias3b.txt', 'x', { 'files-delete-key': 'files', 'linx-delete-key': 'linx' })).delete_key,
      ).toBe('files');
    });
  });

  describe('POST (§4.2)', () => {
    const form = (
      parts: { name: string; filename?: string; value: string | Buffer; type?: string }[],
      boundary = 'XyZbOuNdArY',
    ) => {
      const chunks: Buffer[] = [];
      for (const p of parts) {
        const disp = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
        chunks.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: ${disp}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
          ),
        );
        chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
        chunks.push(Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from(`--${boundary}--\r\n`));
      return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
    };
    const XRW = { 'x-requested-with': 'XMLHttpRequest' };

    it('multipart: 303 to /{name} without JSON; filename path removed', async () => {
      const f = form([{ name: 'file', filename: '../../etc/Pass Wd.TXT', value: 'hello world' }]);
      const r = await c.post('/upload', f.body, { 'content-type': f.type, ...XRW });
      expect(r.status).toBe(303);
      expect(r.headers.location).toBe('/passwd.txt');
      expect(r.body.length).toBe(0);
      expect((await c.get('/selif/passwd.txt')).text).toBe('hello world');
    });

    it('multipart: JSON when preferred; fields before or after the file win over headers', async () => {
      const f = form([
        { name: 'expires', value: '120' },
        { name: 'other', value: 'ignored' },
        { name: 'file', filename: 'form.txt', value: TEST_CONTENT, type: 'application/octet-stream' },
        { name: 'file', filename: 'second.txt', value: 'not the upload' },
        { name: 'access_key', value: 'field-key' },
        { name: 'randomize', value: 'true' },
      ]);
      const r = await c.post('/upload/', f.body, {
        'content-type': f.type,
        ...XRW,
        ...JSON_ACCEPT,
        'files-expiry': '5',
        'files-access-key': 'header-key',
        'files-delete-key': 'dk',
      });
      expect(r.status).toBe(200);
      const j = r.json();
      expect(j.filename).toMatch(new RegExp(`^${RAND}\\.txt$`));
      expect(j).toMatchObject({ access_key: 'field-key', delete_key: 'dk', sha256sum: TEST_SHA, size: '23' });
      const now = Math.floor(Date.now() / 1000);
      expect(Math.abs(Number(j.expiry) - (now + 120))).toBeLessThanOrEqual(2);
    });

    it('multipart: empty or missing file part → 400 Empty file', async () => {
      const empty = form([{ name: 'file', filename: 'e.txt', value: '' }]);
      expect(await c.post('/upload', empty.body, { 'content-type': empty.type, ...XRW })).toMatchObject({
        status: 400,
        text: 'Empty file\n',
      });
      const missing = form([{ name: 'expires', value: '60' }]);
      expect(await c.post('/upload', missing.body, { 'content-type': missing.type, ...XRW })).toMatchObject({
        status: 400,
        text: 'Empty file\n',
      });
    });

    it('multipart: a form field over 64 KiB or a malformed body → 400 Bad request', async () => {
      const big = form([
        { name: 'note', value: 'a'.repeat(64 * 1024 + 1) },
        { name: 'file', filename: 'x.txt', value: 'x' },
      ]);
      expect(await c.post('/upload', big.body, { 'content-type': big.type, ...XRW })).toMatchObject({
        status: 400,
        text: 'Bad request\n',
      });
      const broken = Buffer.from(
        '--XyZbOuNdArY\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nunterminated',
      );
      expect(
        await c.post('/upload', broken, { 'content-type': 'multipart/form-data; boundary=XyZbOuNdArY', ...XRW }),
      ).toMatchObject({ status: 400, text: 'Bad request\n' });
      expect(await c.post('/upload', 'x', { 'content-type': 'multipart/form-data', ...XRW })).toMatchObject({
        status: 400,
        text: 'Bad request\n',
      });
    });

    it('multipart: a field over 64 KiB after the file → 400, the received file not kept', async () => {
      const before = await storeCounts(s);
      for (let i = 0; i < 5; i++) {
        const late = form([
          { name: 'file', filename: 'kept-not.txt', value: 'x'.repeat(900) },
          { name: 'note', value: 'a'.repeat(64 * 1024 + 1) },
        ]);
        expect(await c.post('/upload', late.body, { 'content-type': late.type, ...XRW })).toMatchObject({
          status: 400,
          text: 'Bad request\n',
        });
        expect(await storeCounts(s)).toEqual(before);
      }
      expect((await c.get('/kept-not.txt')).status).toBe(404);
    });

    it('multipart: a file part over the limit → 413, nothing kept', async () => {
      const before = await storeCounts(s);
      const f = form([{ name: 'file', filename: 'huge.txt', value: Buffer.alloc(1001, 0x61) }]);
      expect(await c.post('/upload', f.body, { 'content-type': f.type, ...XRW })).toMatchObject({
        status: 413,
        text: 'File too large\n',
      });
      expect(await storeCounts(s)).toEqual(before);
    });

    it('paste: content + filename + extension → mypaste.py', async () => {
      const r = await c.post('/upload', 'content=print(1)%0A&filename=MyPaste&extension=py', {
        'content-type': 'application/x-www-form-urlencoded',
        ...XRW,
        ...JSON_ACCEPT,
      });
      expect(r.status).toBe(200);
      expect(r.json()).toMatchObject({ filename: 'mypaste.py', size: '9', mimetype: 'text/plain; charset=utf-8' });
      expect((await c.get('/selif/mypaste.py')).text).toBe('print(1)\n');
    });

    it('paste: no extension → txt; empty filename → random name; 303 without JSON', async () => {
      const r = await c.post('/upload', 'content=abc&filename=noext', {
        'content-type': 'application/x-www-form-urlencoded',
        ...XRW,
      });
      expect([r.status, r.headers.location]).toEqual([303, '/noext.txt']);
      const j = (
        await c.post('/upload', 'content=abc&filename=&extension=', {
          'content-type': 'application/x-www-form-urlencoded',
          ...XRW,
          ...JSON_ACCEPT,
        })
      ).json();
      expect(j.filename).toMatch(new RegExp(`^${RAND}\\.txt$`));
    });

    it('paste: empty or missing content, or another body type → 400 Empty file', async () => {
      for (const body of ['content=&filename=x', 'filename=x']) {
        expect(
          await c.post('/upload', body, { 'content-type': 'application/x-www-form-urlencoded', ...XRW }),
        ).toMatchObject({ status: 400, text: 'Empty file\n' });
      }
      expect(await c.post('/upload', 'raw text', { 'content-type': 'text/plain', ...XRW })).toMatchObject({
        status: 400,
        text: 'Empty file\n',
      });
      expect(await c.post('/upload', 'raw', { ...XRW })).toMatchObject({ status: 400, text: 'Empty file\n' });
    });

    describe('origin check', () => {
      const paste = 'content=abc';
      const type = { 'content-type': 'application/x-www-form-urlencoded' };
      it('accepts an Origin equal to the base origin, refuses another', async () => {
        expect((await c.post('/upload', paste, { ...type, origin: BASE })).status).toBe(303);
        expect(await c.post('/upload', paste, { ...type, origin: 'https://evil.example' })).toMatchObject({
          status: 400,
          text: 'Bad request\n',
        });
        expect(
          (await c.post('/upload', paste, { ...type, origin: 'http://files.example.org', 'x-requested-with': 'x' }))
            .status,
        ).toBe(400);
      });
      it('without Origin: a custom header or a same-site Referer passes; nothing else does', async () => {
        for (const h of ['files-delete-key', 'files-expiry', 'files-randomize', 'linx-expiry', 'x-requested-with']) {
          expect((await c.post('/upload', paste, { ...type, [h]: '1' })).status).toBe(303);
        }
        expect((await c.post('/upload', paste, { ...type, referer: `${BASE}/some/page` })).status).toBe(303);
        expect((await c.post('/upload', paste, { ...type, referer: 'https://evil.example/' })).status).toBe(400);
        expect((await c.post('/upload', paste, type)).status).toBe(400);
        expect((await c.post('/upload', paste, { ...type, 'files-api-key': 'k' })).status).toBe(400);
      });
    });
  });

  describe('force random filenames', () => {
    let r: TestServer;
    let rc: ReturnType<typeof client>;
    let rf: Factory;
    beforeAll(async () => {
      r = await startFor(backend, { FILES_FORCE_RANDOM_FILENAME: 'true' });
      rc = client(r);
      rf = new Factory(r);
    });
    afterAll(async () => {
      await r?.close();
    });

    it('a free name is randomized, the extension kept', async () => {
      expect((await rf.upload('wanted.png', 'x')).filename).toMatch(new RegExp(`^${RAND}\\.png$`));
    });

    it('a taken name with its key is overwritten; with a wrong key a random name is used', async () => {
      const first = await rf.upload('x.txt', 'one', { 'files-delete-key': 'k' });
      const again = await rf.upload(first.filename, 'two', { 'files-delete-key': 'k' });
      expect(again.filename).toBe(first.filename);
      expect((await rc.get(`/selif/${first.filename}`)).text).toBe('two');
      const other = await rf.upload(first.filename, 'three', { 'files-delete-key': 'nope' });
      expect(other.filename).not.toBe(first.filename);
      expect(other.filename).toMatch(new RegExp(`^${RAND}\\.txt$`));
    });

    it(`the length limit applies to the final (random) name: a long requested name is not refused (4.5 step \
8)`, async () => {
      expect((await rf.upload(`${'a'.repeat(300)}.txt`, 'x')).filename).toMatch(new RegExp(`^${RAND}\\.txt$`));
      const longExt = await rc.put(`/upload/a.${'e'.repeat(250)}`, 'x');
      expect([longExt.status, longExt.text]).toEqual([400, 'Filename too long\n']);
    });
  });
});
