/** The demo dataset: seeded into an empty database at start, never over existing users, and on demand. */
import { startTestServer, TestServer } from '../../helpers/server';
import { DEMO_ADMIN, DEMO_PASSWORD, DEMO_USERS, seedDemoIfEmpty } from '../../../src/demo/seed';
import { runCli } from '../../../src/cli/main';
import { loadConfig } from '../../../src/config';
import { gql, ok, rest } from './helpers';

describe('with DEMO_SEED on and an empty database', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ DEMO_SEED: 'true' });
  });
  afterAll(async () => s?.close());

  it('seeds groups, users, topics with threaded comments, votes, labels and tags at start', async () => {
    const d = await ok(
      s,
      `{ groups { path }
         topics(first: 100) {
           edges { node { id title tags voteCount commentCount isOfficial group { path } author { username } } }
         }
         topic(id: "1") {
           title threads { nodes {
             depth comment { isExemplary voteCount } descendants { depth comment { isExemplary voteCount } }
           } }
         } }`,
    );
    expect(d.groups.map((g: { path: string }) => g.path)).toEqual(
      expect.arrayContaining(['tech', 'games.tabletop', 'music']),
    );
    const topics = d.topics.edges.map((e: { node: any }) => e.node);
    expect(topics.length).toBeGreaterThanOrEqual(5);
    expect(topics.some((t: any) => t.tags.length > 0)).toBe(true);
    expect(topics.some((t: any) => t.voteCount > 0 && t.commentCount > 0)).toBe(true);
    expect(topics.some((t: any) => t.isOfficial)).toBe(true);
    const flat = d.topic.threads.nodes.flatMap((t: any) => [t, ...t.descendants]);
    expect(Math.max(...flat.map((t: any) => t.depth))).toBeGreaterThanOrEqual(2);
    expect(flat.some((t: any) => t.comment.isExemplary === true)).toBe(true);
  });

  it('lets every demo account log in with the documented password', async () => {
    for (const [username, password] of [
      ...DEMO_USERS.map((u) => [u, DEMO_PASSWORD]),
      [DEMO_ADMIN.username, DEMO_ADMIN.password],
    ]) {
      const d = await ok(
        s,
        'mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token user { username isAdmin } } }',
        { u: username, p: password },
      );
      expect(d.login.user.username).toBe(username);
      expect(d.login.user.isAdmin).toBe(username === DEMO_ADMIN.username);
    }
  });

  it("shows bob topic 1's later comments as new, on both doors (README: an earlier visit)", async () => {
    const login = await ok(s, 'mutation { login(username: "bob", password: "demo-password") { token } }');
    const token = login.login.token as string;
    // Reads only: REST GET /topic/{id} would record a new visit, so the listing is read instead.
    const d = await ok(
      s,
      `{ topic(id: "1") { commentCount newCommentCount lastVisitedAt
           threads { nodes { isNew descendants { isNew } } } } }`,
      {},
      token,
    );
    const threads = d.topic.threads.nodes.flatMap((t: any) => [t, ...t.descendants]);
    const isNew = threads.filter((t: any) => t.isNew).length;
    expect(d.topic.lastVisitedAt).not.toBeNull();
    expect(isNew).toBeGreaterThan(0);
    expect(isNew).toBeLessThan(d.topic.commentCount);
    // The count is every comment since the visit (docs/discussion-api.md §4.7), bob's own included;
    // isNew leaves out his own.
    expect(d.topic.newCommentCount).toBeGreaterThanOrEqual(isNew);

    const listing = await rest(s, '/topics?limit=100', token);
    expect(listing.status).toBe(200);
    const topic1 = listing.body.topics.find((t: any) => t.id === '1');
    expect(topic1.new_comment_count).toBe(d.topic.newCommentCount);
  });

  it('does not seed again once users exist', async () => {
    const before = await ok(s, '{ topics(first: 100) { edges { cursor } } }');
    expect(await seedDemoIfEmpty({ services: s.agora.services, db: s.agora.db })).toBeNull();
    const after = await ok(s, '{ topics(first: 100) { edges { cursor } } }');
    expect(after).toEqual(before);
  });
});

describe('with DEMO_SEED off (the default when MONGODB_URI is set)', () => {
  it('the default follows MONGODB_URI', () => {
    expect(loadConfig({ MONGODB_URI: 'mongodb://db:27017/agora' }).demoSeed).toBe(false);
    expect(loadConfig({}).demoSeed).toBe(true);
  });

  it('nothing is seeded', async () => {
    const s = await startTestServer({ DEMO_SEED: 'false' });
    try {
      const r = await gql(s, '{ groups { path } topics { edges { cursor } } }');
      expect(r.body.data).toEqual({ groups: [], topics: { edges: [] } });
    } finally {
      await s.close();
    }
  });
});

describe('npm run cli -- demo:seed', () => {
  it('is listed and seeds on demand, once', async () => {
    const lines: string[] = [];
    const io = {
      out: (l: string) => lines.push(l),
      err: (l: string) => lines.push(l),
      env: () => undefined,
      readStdin: async () => '',
    };
    const dataDir = require('node:fs').mkdtempSync(
      require('node:path').join(require('node:os').tmpdir(), 'agora-demo-cli-'),
    );
    const dbName = `agora_demo_cli_${Date.now()}`;
    const base = process.env.MONGODB_URI!;
    const uri = base.replace(/(mongodb:\/\/[^/?]+)(\/[^?]*)?/, `$1/${dbName}`);
    const env = {
      MONGODB_URI: uri,
      DATA_DIR: dataDir,
      JWT_SECRET: 'x'.repeat(40),
      LOG_LEVEL: 'silent',
      PATH: process.env.PATH,
    };
    expect(await runCli(['help'], env, io)).toBe(0);
    expect(lines.join('\n')).toMatch(/demo:seed/);
    lines.length = 0;
    expect(await runCli(['demo:seed'], env, io)).toBe(0);
    expect(lines.join('\n')).toMatch(/Seeded \d+ groups, \d+ users, \d+ topics and \d+ comments/);
    lines.length = 0;
    expect(await runCli(['demo:seed'], env, io)).toBe(0);
    expect(lines.join('\n')).toMatch(/already there/);
    require('node:fs').rmSync(dataDir, { recursive: true, force: true });
  });
});
