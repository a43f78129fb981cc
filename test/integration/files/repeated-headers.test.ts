/**
 * A header sent more than once counts with its first value (docs/files-api.md §2.1), as Go's
 * Header.Get reads it: never the values joined with ", " as Node hands them over. Files REST
 * (uploads, reads, DELETE, API key) and GraphQL uploads, which read the same headers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { client, request } from './helpers';

const JSON_ACCEPT = { accept: 'application/json' };
const RAND = /^[a-z0-9]{8}\.txt$/;

describe('Files REST', () => {
  let s: TestServer;
  let c: ReturnType<typeof client>;
  let f: Factory;
  beforeAll(async () => {
    s = await startTestServer();
    c = client(s);
    f = new Factory(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('Linx-Randomize: yes then no randomizes; no then yes does not', async () => {
    expect((await f.upload('r1.txt', 'x', { 'linx-randomize': ['yes', 'no'] } as never)).filename).toMatch(RAND);
    expect((await f.upload('r2.txt', 'x', { 'files-randomize': ['no', 'yes'] } as never)).filename).toBe('r2.txt');
  });

  it('two delete-key lines set the first as the key, for upload and DELETE', async () => {
    const j = await f.upload('dk.txt', 'x', { 'linx-delete-key': ['first', 'second'] } as never);
    expect(j.delete_key).toBe('first');
    expect((await c.del('/dk.txt', { 'files-delete-key': ['second', 'first'] })).status).toBe(401);
    expect((await c.del('/dk.txt', { 'files-delete-key': ['first', 'second'] })).status).toBe(200);
  });

  it('two access-key and expiry lines: the first counts', async () => {
    const j = await f.upload('ak.txt', 'x', {
      'files-access-key': ['ak1', 'ak2'],
      'files-expiry': ['60', '0'],
    } as never);
    expect(j.access_key).toBe('ak1');
    expect(Number(j.expiry) - Math.floor(Date.now() / 1000)).toBeGreaterThan(50);
    expect((await c.get('/selif/ak.txt', { 'files-access-key': ['ak2', 'ak1'] })).status).toBe(401);
    expect((await c.get('/selif/ak.txt', { 'files-access-key': ['ak1', 'ak2'] })).text).toBe('x');
  });

  it('a repeated Accept counts with its first line', async () => {
    await f.upload('acc.txt', 'x');
    const r = await c.get('/acc.txt', { accept: ['application/json', 'text/plain'] });
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await c.get('/acc.txt', { accept: ['text/plain', 'application/json'] })).text).toBe('x');
  });
});

describe('API key (REST and GraphQL uploads)', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-repeated-'));
    // The key haPVipRnGJ0QovA9nyqK (docs/files-api.md §10 test vector).
    fs.writeFileSync(path.join(dir, 'authfile'), 'vhvZ/PT1jeTbTAJ8JdoxddqFtebSxdVb0vwPlYO+4HM=\n');
    s = await startTestServer({ FILES_REQUIRE_API_KEY: 'true', FILES_AUTH_FILE: path.join(dir, 'authfile') });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const put = (keys: string[]) =>
    request(s.url, 'PUT', '/upload/k.txt', { headers: { ...JSON_ACCEPT, 'files-api-key': keys }, body: 'x' });

  it('REST: the first Files-Api-Key line is the key', async () => {
    expect((await put(['haPVipRnGJ0QovA9nyqK', 'wrong'])).status).toBe(200);
    expect((await put(['wrong', 'haPVipRnGJ0QovA9nyqK'])).status).toBe(401);
  });

  it('GraphQL uploadFile: the first Files-Api-Key line is the key', async () => {
    const boundary = 'rep42';
    const part = (name: string, value: string, file?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; ` +
      `name="${name}"${file ? `; filename="${file}"` : ''}\r\n\r\n${value}\r\n`;
    const query = 'mutation($file: Upload!) { uploadFile(file: $file) { filename } }';
    const body =
      part('operations', JSON.stringify({ query, variables: { file: null } })) +
      part('map', '{"0":["variables.file"]}') +
      part('0', 'hello', 'g.txt') +
      `--${boundary}--\r\n`;
    const send = (keys: string[]) =>
      request(s.url, 'POST', '/graphql', {
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'apollo-require-preflight': 'true',
          'files-api-key': keys,
        },
        body,
      });
    const ok = (await send(['haPVipRnGJ0QovA9nyqK', 'wrong'])).json<{
      data: { uploadFile: { filename: string } } | null;
    }>();
    expect(ok.data?.uploadFile.filename).toBe('g.txt');
    const refused = (await send(['wrong', 'haPVipRnGJ0QovA9nyqK'])).json<{ errors?: unknown[] }>();
    expect(refused.errors).toHaveLength(1);
  });
});
