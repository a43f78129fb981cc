/**
 * docs/files-api.md §14, reproduced request by request (curl's requests: `-T file URL/` appends the
 * file name and sends `Accept: *\/*`). Generated values (delete keys, times) are checked by shape.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestServer } from '../../helpers/server';
import { BACKENDS, client, startFor } from './helpers';

const BASE = 'https://files.example.org';
const NOTES = 'This is my test content';
const SHA = '966152d20a77e739716a625373ee15af16e8f4aec631a329a27da41c204b0171';
const CURL = { accept: '*/*', 'user-agent': 'curl/8.5.0' };

describe.each(BACKENDS)('§14 examples on %s', (backend) => {
  let s: TestServer;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    s = await startFor(backend, { PUBLIC_URL: BASE });
    c = client(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  let deleteKey = '';

  it('curl -T notes.txt …/upload/ → 200 text URL', async () => {
    const r = await c.put('/upload/notes.txt', NOTES, CURL);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.text).toBe(`${BASE}/notes.txt\n`);
  });

  it('Accept: application/json, Files-Expiry: 3600 → notes1.txt JSON', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await c.put('/upload/notes.txt', NOTES, { ...CURL, accept: 'application/json', 'files-expiry': '3600' });
    const after = Math.floor(Date.now() / 1000);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const j = r.json();
    deleteKey = j.delete_key!;
    expect(deleteKey).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(Number(j.expiry)).toBeGreaterThanOrEqual(before + 3600);
    expect(Number(j.expiry)).toBeLessThanOrEqual(after + 3600);
    expect(r.text).toBe(
      `{"access_key":"","delete_key":"${deleteKey}","direct_url":"${BASE}/selif/notes1.txt",` +
        `"expiry":"${j.expiry}","filename":"notes1.txt","mimetype":"text/plain; charset=utf-8",` +
        `"sha256sum":"${SHA}","size":"23","url":"${BASE}/notes1.txt"}`,
    );
  });

  it('Linx-Delete-Key overwrite of notes1.txt → 200 URL; expiry reset to never', async () => {
    const r = await c.put('/upload/notes1.txt', NOTES, { ...CURL, 'linx-delete-key': deleteKey });
    expect([r.status, r.text]).toEqual([200, `${BASE}/notes1.txt\n`]);
  });

  it('information of notes1.txt', async () => {
    const r = await c.get('/notes1.txt', { ...CURL, accept: 'application/json' });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers.vary).toBe('Accept');
    expect(r.text).toBe(
      `{"direct_url":"${BASE}/selif/notes1.txt","expiry":"0","filename":"notes1.txt","mimetype":"text/plain; ` +
        `charset=utf-8","sha256sum":"${SHA}","size":"23"}`,
    );
  });

  it('curl -r 0-3 → 206 This', async () => {
    const r = await c.get('/selif/notes1.txt', { ...CURL, range: 'bytes=0-3' });
    expect(r.status).toBe(206);
    expect(r.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      'content-range': 'bytes 0-3/23',
      'content-length': '4',
      etag: `"${SHA}"`,
      'cache-control': 'public, no-cache',
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
    });
    expect(r.headers['content-security-policy']).toMatch(/^default-src 'none'; .* sandbox$/);
    expect(r.text).toBe('This');
  });

  it('If-None-Match with the ETag → 304, no body', async () => {
    const r = await c.get('/selif/notes1.txt', { ...CURL, 'if-none-match': `"${SHA}"` });
    expect([r.status, r.body.length]).toEqual([304, 0]);
  });

  it('DELETE with a wrong key → 401 Invalid delete key; with the key → 200 DELETED; then 404', async () => {
    const wrong = await c.del('/notes1.txt', { ...CURL, 'files-delete-key': 'wrong' });
    expect([wrong.status, wrong.text]).toEqual([401, 'Invalid delete key\n']);
    const ok = await c.del('/notes1.txt', { ...CURL, 'files-delete-key': deleteKey });
    expect([ok.status, ok.text]).toEqual([200, 'DELETED']);
    const gone = await c.get('/notes1.txt', { ...CURL, accept: 'application/json' });
    expect([gone.status, gone.text]).toEqual([404, '{"error":"File not found"}']);
  });

  it('empty PUT with Accept: application/json → 400 {"error":"Empty file"}', async () => {
    const r = await c.put('/upload/empty.txt', '', { ...CURL, accept: 'application/json' });
    expect([r.status, r.text]).toEqual([400, '{"error":"Empty file"}']);
  });

  it('Files-Access-Key: pw1 → sec.txt; raw without key 401; ?access_key=pw1 → 200', async () => {
    const up = await c.put('/upload/sec.txt', NOTES, { ...CURL, 'files-access-key': 'pw1' });
    expect([up.status, up.text]).toEqual([200, `${BASE}/sec.txt\n`]);
    const denied = await c.get('/selif/sec.txt', CURL);
    expect([denied.status, denied.text]).toEqual([401, 'Invalid access key\n']);
    const ok = await c.get('/selif/sec.txt?access_key=pw1', CURL);
    expect([ok.status, ok.text]).toEqual([200, NOTES]);
  });
});

describe.each(BACKENDS)('§14 API-key example on %s', (backend) => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-auth-'));
    fs.writeFileSync(path.join(dir, 'authfile'), '+WF9cp911lSS1SnCRFBwu7rWQ5qeK8t7oFgq9pNHER8=\n');
    s = await startFor(backend, {
      PUBLIC_URL: BASE,
      FILES_REQUIRE_API_KEY: 'true',
      FILES_AUTH_FILE: path.join(dir, 'authfile'),
    });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`no key → 401 Unauthorized; Files-Api-Key: mysecretkey → 200; -u any:mysecretkey DELETE → 200 \
DELETED`, async () => {
    const c = client(s);
    const denied = await c.put('/upload/notes.txt', NOTES, CURL);
    expect([denied.status, denied.text]).toEqual([401, 'Unauthorized\n']);
    const ok = await c.put('/upload/notes.txt', NOTES, {
      ...CURL,
      'files-api-key': 'mysecretkey',
      'files-delete-key': 'dk',
    });
    expect([ok.status, ok.text]).toEqual([200, `${BASE}/notes.txt\n`]);
    const del = await c.del('/notes.txt', {
      ...CURL,
      authorization: `Basic ${Buffer.from('any:mysecretkey').toString('base64')}`,
      'files-delete-key': 'dk',
    });
    expect([del.status, del.text]).toEqual([200, 'DELETED']);
  });
});
