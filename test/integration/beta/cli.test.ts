/** `npm run cli -- user:create|user:ban|user:unban|group:create`, run in-process on the test database. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { runCli } from '../../../src/cli/main';
import type { CliIO } from '../../../src/cli/command';
import { withDatabaseName } from '../../../src/server';

const dbName = `agora_cli_${crypto.randomBytes(5).toString('hex')}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-cli-'));
let conn: mongoose.Connection;

async function cli(argv: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DEMO_SEED: 'false',
    MONGODB_URI: withDatabaseName(process.env.MONGODB_URI!, dbName),
    ...opts.env,
  };
  const io: CliIO = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: (n) => env[n],
    readStdin: async () => opts.stdin ?? '',
  };
  const code = await runCli(argv, env, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  conn = await mongoose.createConnection(withDatabaseName(process.env.MONGODB_URI!, dbName)).asPromise();
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('user:create', () => {
  it('takes the password from AGORA_PASSWORD', async () => {
    const r = await cli(['user:create', 'Alice', '--admin'], { env: { AGORA_PASSWORD: 'correct horse battery' } });
    expect(r).toMatchObject({ code: 0, out: 'Created admin user Alice (id 1).' });
    const doc = await conn.collection('users').findOne({ usernameLower: 'alice' });
    expect(doc).toMatchObject({ username: 'Alice', isAdmin: true, banned: false });
  });

  it('takes the password from the first line of standard input', async () => {
    const r = await cli(['user:create', 'bob'], { stdin: 'a long password\nignored\n' });
    expect(r).toMatchObject({ code: 0, out: 'Created user bob (id 2).' });
  });

  it('fails clearly: no password, taken or invalid name, short password, bad arguments', async () => {
    expect(await cli(['user:create', 'carol'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/AGORA_PASSWORD/),
    });
    expect(await cli(['user:create', 'ALICE'], { stdin: 'long enough' })).toMatchObject({
      code: 1,
      err: 'error: That username is already taken',
    });
    expect((await cli(['user:create', 'a'], { stdin: 'long enough' })).code).toBe(1);
    expect((await cli(['user:create', 'carol'], { stdin: 'short' })).code).toBe(1);
    expect((await cli(['user:create'], { stdin: 'long enough' })).code).toBe(2);
    expect((await cli(['user:create', 'x1', 'x2'], { stdin: 'long enough' })).code).toBe(2);
    expect((await cli(['user:create', 'carol', '--root'], { stdin: 'long enough' })).code).toBe(2);
  });
});

describe('user:ban and user:unban', () => {
  it('bans and unbans by username (case-insensitive)', async () => {
    expect(await cli(['user:ban', 'BOB'])).toMatchObject({ code: 0, out: 'Banned bob.' });
    expect(await conn.collection('users').findOne({ usernameLower: 'bob' })).toMatchObject({ banned: true });
    expect(await cli(['user:unban', 'bob'])).toMatchObject({ code: 0, out: 'Unbanned bob.' });
    expect(await conn.collection('users').findOne({ usernameLower: 'bob' })).toMatchObject({ banned: false });
  });

  it('fails for unknown users and missing arguments', async () => {
    expect(await cli(['user:ban', 'nobody'])).toMatchObject({ code: 1, err: 'error: User not found' });
    expect((await cli(['user:unban'])).code).toBe(2);
  });
});

describe('group:create', () => {
  it('creates a group with a description', async () => {
    expect(await cli(['group:create', 'games.tabletop', '--description', 'Board and card games'])).toMatchObject({
      code: 0,
      out: 'Created group ~games.tabletop.',
    });
    expect(await conn.collection('groups').findOne({ _id: 'games.tabletop' as never })).toMatchObject({
      description: 'Board and card games',
    });
  });

  it('fails for duplicates, invalid paths and bad arguments', async () => {
    expect(await cli(['group:create', 'games.tabletop'])).toMatchObject({
      code: 1,
      err: 'error: The group ~games.tabletop already exists',
    });
    expect((await cli(['group:create', 'Not Valid'])).code).toBe(1);
    expect((await cli(['group:create'])).code).toBe(2);
    expect((await cli(['group:create', 'x', '--description'])).code).toBe(2);
  });
});

describe('failures around the database and arguments', () => {
  it('a database that accepts connections but never answers: exit 1 with one clear line, no stack trace', async () => {
    const net = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    const silent = net.createServer((s) => {
      sockets.add(s);
      s.on('data', () => {});
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    try {
      const started = Date.now();
      const r = await cli(['db:status'], { env: { MONGODB_URI: `mongodb://127.0.0.1:${port}/agora` } });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        /^error: cannot reach the database \(MongoDB at mongodb:\/\/127\.0\.0\.1:\d+\/agora \(MONGODB_URI\)\): /,
      );
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('file commands refuse extra arguments and unknown options with the usage line (exit 2)', async () => {
    expect(await cli(['apikey:list', 'extra'])).toMatchObject({
      code: 2,
      err: 'unexpected argument: extra\nUsage: apikey:list',
    });
    expect(await cli(['apikey:create', '--label=x'])).toMatchObject({
      code: 2,
      err: 'unknown option: --label\nUsage: apikey:create [--name <label>]',
    });
    expect(await cli(['apikey:revoke'])).toMatchObject({
      code: 2,
      err: 'missing <id> (see apikey:list)\nUsage: apikey:revoke <id>',
    });
    expect((await cli(['files:cleanup', 'now'])).code).toBe(2);
  });
});

describe('counts:verify', () => {
  it('reports drifted counts with exit 1, sets them with --fix, and then finds none', async () => {
    await conn.collection('topics').insertOne({ _id: 901, voteCount: 4, commentCount: 2 } as never);
    await conn
      .collection('comments')
      .insertOne({ _id: 902, topicId: 901, deleted: false, removed: false, voteCount: 0, labelWeights: {} } as never);
    await conn
      .collection('marks')
      .insertOne({ userId: 1, kind: 'comment', postId: 902, topicId: 901, voted: true } as never);

    const found = await cli(['counts:verify']);
    expect(found.code).toBe(1);
    expect(found.out).toContain(
      'topic 901: stored {"voteCount":4,"commentCount":2}, counted {"voteCount":0,"commentCount":1}',
    );
    expect(found.out).toMatch(/comment 902: stored \{"voteCount":0,"labelWeights":\{\}\}, counted \{"voteCount":1,/);
    expect(found.out).toMatch(/Checked \d+ topics and \d+ comments: 2 with drifted counts\.$/);

    expect(await cli(['counts:verify', '--fix'])).toMatchObject({
      code: 0,
      out: expect.stringMatching(/2 with drifted counts, 2 fixed\.$/),
    });
    expect(await conn.collection('topics').findOne({ _id: 901 } as never)).toMatchObject({
      voteCount: 0,
      commentCount: 1,
    });
    expect(await cli(['counts:verify'])).toMatchObject({
      code: 0,
      out: expect.stringMatching(/: 0 with drifted counts\.$/),
    });
    expect((await cli(['counts:verify', 'extra'])).code).toBe(2);
  });

  it('gives comments stored before depths were (or with a wrong one) their depth from the parent links', async () => {
    const comment = (id: number, parentId: number | null, depth?: number) => ({
      _id: id,
      topicId: 911,
      parentId,
      deleted: false,
      removed: false,
      voteCount: 0,
      labelWeights: { exemplary: 0, noise: 0, offtopic: 0, joke: 0, malice: 0 },
      ...(depth === undefined ? {} : { depth }),
    });
    await conn.collection('topics').insertOne({ _id: 911, voteCount: 0, commentCount: 4 } as never);
    await conn
      .collection('comments')
      .insertMany([comment(912, null), comment(913, 912, 1), comment(914, 913), comment(915, 914, 7)] as never[]);

    const found = await cli(['counts:verify']);
    expect(found.code).toBe(1);
    expect(found.out).toContain('comment 912: stored {"voteCount":0,"labelWeights":');
    expect(found.out).toMatch(/comment 914: stored \{[^}]*\}\}, counted \{[^}]*\},"depth":2\}/);
    expect(found.out).toMatch(/comment 915: stored \{[^}]*\},"depth":7\}, counted \{[^}]*\},"depth":3\}/);
    expect(found.out).not.toContain('comment 913');
    expect(found.out).toMatch(/: 3 with drifted counts\.$/);

    expect(await cli(['counts:verify', '--fix'])).toMatchObject({ code: 0, out: expect.stringMatching(/3 fixed\.$/) });
    const stored = await conn
      .collection('comments')
      .find({ topicId: 911 } as never)
      .sort({ _id: 1 })
      .toArray();
    expect(stored.map((c) => c.depth)).toEqual([0, 1, 2, 3]);
    expect((await cli(['counts:verify'])).out).toMatch(/: 0 with drifted counts\.$/);
  });
});
