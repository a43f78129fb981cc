/**
 * API keys (docs/files-api.md §10) from the database (issued with the CLI) and from a linx auth file;
 * files:cleanup.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { withDatabaseName } from '../../../src/server';
import { TEST_JWT_SECRET, TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { BACKENDS, client, metadata, startFor } from './helpers';

/** Runs `npm run cli -- …` in-process against the server's database and data directory. */
async function cli(s: TestServer, argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MONGODB_URI: withDatabaseName(process.env.MONGODB_URI!, s.agora.db.name),
    DATA_DIR: s.config.dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    DEMO_SEED: 'false',
    LOG_LEVEL: 'silent',
    FILES_STORAGE: s.config.files.storage,
  };
  const code = await runCli(argv, env, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    readStdin: async () => '',
    env: (n) => env[n as keyof typeof env],
  });
  return { code, out, err };
}

const basic = (password: string) => `Basic ${Buffer.from(`anyone:${password}`).toString('base64')}`;

describe.each(BACKENDS)('API keys on %s', (backend) => {
  let s: TestServer;
  let dir: string;
  let c: ReturnType<typeof client>;
  let f: Factory;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-auth-'));
    fs.writeFileSync(
      path.join(dir, 'authfile'),
      '# migrated from linx\n\nvhvZ/PT1jeTbTAJ8JdoxddqFtebSxdVb0vwPlYO+4HM=\n' +
        'QwFSkSu2sTB6XhZeRh9giIEIQr+FtSdGK29hP7nOnog=\n',
    );
    s = await startFor(backend, {
      FILES_REQUIRE_API_KEY: 'true',
      FILES_AUTH_FILE: path.join(dir, 'authfile'),
      FILES_MAX_SIZE: '100',
    });
    c = client(s);
    f = new Factory(s);
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads and deletes need a key; reads and OPTIONS never do', async () => {
    expect(await c.put('/upload/a.txt', 'x')).toMatchObject({ status: 401, text: 'Unauthorized\n' });
    expect(await c.put('/upload/a.txt', 'x', { accept: 'application/json' })).toMatchObject({
      status: 401,
      text: '{"error":"Unauthorized"}',
    });
    expect(
      await c.post('/upload', 'content=x', {
        'content-type': 'application/x-www-form-urlencoded',
        'x-requested-with': 'x',
      }),
    ).toMatchObject({ status: 401 });
    expect(await c.del('/a.txt', { 'files-delete-key': 'k' })).toMatchObject({ status: 401, text: 'Unauthorized\n' });
    expect((await c.req('OPTIONS', '/upload')).status).toBe(200);
    const up = await c.put('/upload/pub.txt', 'public', { 'files-api-key': 'haPVipRnGJ0QovA9nyqK' });
    expect(up.status).toBe(200);
    expect((await c.get('/selif/pub.txt')).text).toBe('public');
    expect((await c.get('/pub.txt', { accept: 'application/json' })).status).toBe(200);
  });

  it('the key is checked before anything else', async () => {
    // An oversized declared body and a failing origin check still answer 401 first.
    // (A declared body over 1 MiB is not drained first: refused at once, docs/files-api.md §3.)
    const big = await c.put('/upload/big.txt', 'x', { 'content-length': '2000000' });
    expect([big.status, big.headers.connection]).toEqual([401, 'close']);
    expect((await c.post('/upload', 'content=x', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(
      401,
    );
    expect((await c.del('/nope.txt')).status).toBe(401);
  });

  it('auth-file keys: Files-Api-Key, Linx-Api-Key, or the Basic password; the empty key never', async () => {
    expect((await c.put('/upload/b.txt', 'x', { 'files-api-key': 'haPVipRnGJ0QovA9nyqK' })).status).toBe(200);
    expect((await c.put('/upload/b.txt', 'x', { 'linx-api-key': 'haPVipRnGJ0QovA9nyqK' })).status).toBe(200);
    expect((await c.put('/upload/b.txt', 'x', { authorization: basic('haPVipRnGJ0QovA9nyqK') })).status).toBe(200);
    expect((await c.put('/upload/b.txt', 'x', { 'files-api-key': 'mysecretkey' })).status).toBe(401);
    expect((await c.put('/upload/b.txt', 'x', { 'files-api-key': '' })).status).toBe(401);
    expect((await c.put('/upload/b.txt', 'x', { authorization: basic('') })).status).toBe(401);
    // An empty Files-Api-Key falls back to the Basic password.
    expect(
      (await c.put('/upload/b.txt', 'x', { 'files-api-key': '', authorization: basic('haPVipRnGJ0QovA9nyqK') })).status,
    ).toBe(200);
  });

  it("one rule with GraphQL: a logged-in user's bearer token writes without a key; a bad token does not", async () => {
    const user = await new Factory(s).user(`keyless${backend}`);
    const token = await user.tokenNow();
    const up = await c.put('/upload/by-user.txt', 'x', { authorization: `Bearer ${token}`, 'files-delete-key': 'dk' });
    expect(up.status).toBe(200);
    expect((await c.put('/upload/by-user.txt', 'x', { authorization: `Bearer ${token}x` })).status).toBe(401);
    expect((await c.del('/by-user.txt', { 'files-delete-key': 'dk' })).status).toBe(401);
    expect((await c.del('/by-user.txt', { 'files-delete-key': 'dk', authorization: `Bearer ${token}` })).status).toBe(
      200,
    );
  });

  it(`apikey:create prints a new key once (43 characters, alone on the last line); only its SHA-256 is \
stored`, async () => {
    const r = await cli(s, ['apikey:create', '--name', 'ci-bot']);
    expect(r.code).toBe(0);
    const key = r.out[r.out.length - 1]!;
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const docs = await s.agora.db.conn.collection('files_api_keys').find({}).toArray();
    const doc = docs.find((d) => d.name === 'ci-bot')!;
    expect(doc.digest).toBe(crypto.createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(docs)).not.toContain(key);
    expect(doc.createdAt).toBeInstanceOf(Date);

    expect((await c.put('/upload/db.txt', 'x', { 'files-api-key': key, 'files-delete-key': 'dk' })).status).toBe(200);
    expect((await c.del('/db.txt', { authorization: basic(key), 'files-delete-key': 'dk' })).text).toBe('DELETED');
  });

  it(`apikey:list shows id, label and creation time, never the key or its hash; apikey:revoke takes effect at \
once`, async () => {
    const created = await cli(s, ['apikey:create', '--name', 'to-revoke']);
    const key = created.out[created.out.length - 1]!;
    const id = /([0-9a-f]{24})/.exec(created.out[0]!)![1]!;
    const list = await cli(s, ['apikey:list']);
    expect(list.code).toBe(0);
    const text = list.out.join('\n');
    expect(text).toContain(id);
    expect(text).toContain('to-revoke');
    expect(text).toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(text).not.toContain(key);
    expect(text).not.toContain(crypto.createHash('sha256').update(key).digest('hex'));

    expect((await c.put('/upload/r.txt', 'x', { 'files-api-key': key })).status).toBe(200);
    const revoke = await cli(s, ['apikey:revoke', id]);
    expect(revoke.code).toBe(0);
    expect((await c.put('/upload/r.txt', 'x', { 'files-api-key': key })).status).toBe(401);
    expect((await cli(s, ['apikey:revoke', id])).code).toBe(1);
    expect((await cli(s, ['apikey:revoke', 'not-an-id'])).code).toBe(1);
    expect((await cli(s, ['apikey:revoke'])).code).toBe(2);
  });

  it('files:cleanup deletes every expired file and prints how many', async () => {
    const key = 'haPVipRnGJ0QovA9nyqK';
    for (const n of ['e1.txt', 'e2.txt', 'keep.txt'])
      expect((await c.put(`/upload/${n}`, 'x', { 'files-api-key': key })).status).toBe(200);
    await f.setExpiry('e1.txt', 1);
    await f.setExpiry('e2.txt', Math.floor(Date.now() / 1000) - 1);
    const r = await cli(s, ['files:cleanup']);
    expect(r.code).toBe(0);
    expect(r.out.join('\n')).toMatch(/Deleted 2 expired files/);
    const names = (await metadata(s)).map((d) => d.filename);
    expect(names).toContain('keep.txt');
    expect(names).not.toContain('e1.txt');
    expect((await cli(s, ['files:cleanup'])).out.join('\n')).toMatch(/Deleted 0 expired files/);
  });
});

describe('FILES_AUTH_FILE that cannot be read', () => {
  it('stops start-up with a message naming the variable', async () => {
    await expect(startFor('disk', { FILES_AUTH_FILE: '/nonexistent/authfile' })).rejects.toThrow(/FILES_AUTH_FILE/);
  });
});
