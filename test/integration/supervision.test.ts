/**
 * The embedded database survives its own faults (issue 18), with real server processes and a real
 * database process killed with SIGKILL: the server relaunches it on the same port (its connection
 * reconnects by itself), acknowledged writes are all there afterwards, a database whose owner died
 * is adopted and stopped by its new owner, two servers on one DATA_DIR never both own it, and
 * MONGODB_URI is never supervised.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { isAlive } from '../../src/core/process';
import { cachedFerretdbPath } from '../../src/db/ferretdb-build';
import { launchDatabase } from '../../src/db/launcher';
import { whichSync } from '../../src/db/server-process';
import { DatabaseSupervisor } from '../../src/db/supervisor';
import { baseEnv, ServerProcess, startServerProcess } from '../helpers/child';
import { ensureBuilt } from '../helpers/dist';
import { databaseProcesses, gql, killHard, login, portOf, readRecord } from '../helpers/embedded';
import { sleep, until, waitReady } from '../helpers/embedded';

jest.setTimeout(180_000);

const dirs: string[] = [];
const servers: ServerProcess[] = [];

beforeAll(() => ensureBuilt());

afterAll(async () => {
  // Awaited: a child still exiting when the file ends keeps Jest's worker from exiting gracefully.
  for (const s of servers)
    if (s.child.exitCode === null && s.child.signalCode === null) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  for (const dir of dirs) {
    for (const pid of databaseProcesses(dir)) await killHard(pid);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-supervision-'));
  dirs.push(dir);
  return dir;
}

async function start(dir: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
  const s = await startServerProcess(baseEnv({ DATA_DIR: dir, DEMO_SEED: 'true', LOG_LEVEL: 'info', ...extra }));
  servers.push(s);
  return s;
}

const POST_COMMENT = 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id36 } } }';
const VOTE_COMMENT = 'mutation($id: ID!) { voteComment(id: $id) { id voteCount } }';

interface RestComment {
  id: string;
  votes: number;
  children?: RestComment[];
}

/** Every comment of a topic through REST, flattened, by id36. */
async function commentsOf(url: string, topic: string): Promise<Map<string, RestComment>> {
  const r = await fetch(`${url}/api/beta/topic/${topic}`);
  expect(r.status).toBe(200);
  const byId = new Map<string, RestComment>();
  const walk = (list: RestComment[]) => list.forEach((c) => (byId.set(c.id, c), walk(c.children ?? [])));
  walk(((await r.json()) as { comments: RestComment[] }).comments);
  return byId;
}

describe('a killed embedded database', () => {
  it('is relaunched on its port within seconds; every write acknowledged before the kill is there', async () => {
    const dir = dataDir();
    const server = await start(dir);
    const first = readRecord(dir)!;
    expect(first.ownerPid).toBe(server.child.pid);
    const [alice, bob] = [await login(server.url, 'alice'), await login(server.url, 'bob')];

    const comments: string[] = [];
    const uploads: { name: string; sha256: string }[] = [];
    let pid = first.pid;
    for (let round = 0; round < 3; round++) {
      // Acknowledged writes of every kind, then the database dies the moment the last is answered.
      for (let i = 0; i < 4; i++) {
        const c = await gql(server.url, POST_COMMENT, { t: '1', m: `round ${round} comment ${i}` }, alice);
        const id = (c.body.data?.postComment as { comment: { id36: string } }).comment.id36;
        comments.push(id);
        const v = await gql(server.url, VOTE_COMMENT, { id }, bob);
        expect((v.body.data?.voteComment as { voteCount: number }).voteCount).toBe(1);
      }
      const bytes = crypto.randomBytes(200_000);
      const headers = { accept: 'application/json' };
      const up = await fetch(`${server.url}/upload/round${round}.bin`, { method: 'PUT', headers, body: bytes });
      expect(up.status).toBe(200);
      const { filename } = (await up.json()) as { filename: string };
      uploads.push({ name: filename, sha256: crypto.createHash('sha256').update(bytes).digest('hex') });

      await killHard(pid);
      const ms = await waitReady(server.url, 10_000);
      const now = readRecord(dir)!;
      expect(now.pid).not.toBe(pid);
      expect(isAlive(now.pid)).toBe(true);
      // Same port: the server's own connection reconnected without being told anything.
      expect(portOf(now.uri)).toBe(portOf(first.uri));
      expect(now.ownerPid).toBe(server.child.pid);
      expect(ms).toBeLessThan(10_000);
      pid = now.pid;
    }

    const found = await commentsOf(server.url, '1');
    for (const id of comments) expect([id, found.get(id)?.votes]).toEqual([id, 1]);
    for (const u of uploads) {
      const r = await fetch(`${server.url}/selif/${u.name}`);
      expect(r.status).toBe(200);
      expect(
        crypto
          .createHash('sha256')
          .update(Buffer.from(await r.arrayBuffer()))
          .digest('hex'),
      ).toBe(u.sha256);
    }
    // Each relaunch is logged, with its attempt.
    // Killed again soon after a relaunch: the wait doubles (crash-loop backoff).
    const waits = server.output().match(/exited unexpectedly; relaunching it in [\d.]+ s/g);
    expect(waits).toEqual([0.5, 1, 2].map((s) => `exited unexpectedly; relaunching it in ${s} s`));
    expect(server.output()).toMatch(/the database is back: pid \d+ on mongodb:\/\/127\.0\.0\.1:\d+ \(attempt 1\)/);

    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    expect(databaseProcesses(dir)).toEqual([]);
  });

  const FAILING =
    "while relaunches fail: 503 in each door's format, /readyz names five failures in a row, " +
    'and it keeps trying until one works';
  it(FAILING, async () => {
    const cfg = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME }).database;
    const real = cfg.ferretdbBin ?? cachedFerretdbPath(cfg.cacheDir);
    if (cfg.mongodBin || whichSync('mongod', cfg.searchPath) || !fs.existsSync(real)) {
      console.warn(`skipped: the embedded database here is not the FerretDB at ${real}, which this test wraps`);
      return;
    }
    const dir = dataDir();
    // A FerretDB that refuses to start while the flag file exists.
    const flag = path.join(dir, 'refuse-to-start');
    const wrapper = path.join(dir, 'ferretdb-wrapper.sh');
    const refuse = `[ -e '${flag}' ] && { echo 'refusing to start (test)' >&2; exit 1; }`;
    const script = `#!/bin/sh\n${refuse}\nexec '${real}' "$@"\n`;
    fs.writeFileSync(wrapper, script, { mode: 0o755 });
    const server = await start(dir, { FERRETDB_BIN: wrapper, DEMO_SEED: 'false' });
    const put = await fetch(`${server.url}/upload/kept.txt`, { method: 'PUT', body: 'kept' });
    expect(put.status).toBe(200);

    fs.writeFileSync(flag, '');
    const killedAt = Date.now();
    await killHard(readRecord(dir)!.pid);

    // Each door answers 503 in its own format while the database is away.
    const beta = await fetch(`${server.url}/api/beta/topics`);
    expect([beta.status, await beta.json()]).toEqual([503, [{ message: expect.any(String) }]]);
    const graphql = await gql(server.url, '{ topics(first: 1) { edges { node { id } } } }');
    expect(graphql.status).toBe(503);
    expect(graphql.body.errors?.map((e) => e.extensions?.code)).toContain('SERVICE_UNAVAILABLE');
    // A file this process has never looked up needs the database (one it uploaded is in its metadata
    // cache and is still served: see the outage test).
    const info = await fetch(`${server.url}/unseen.txt`, { headers: { accept: 'application/json' } });
    expect([info.status, await info.text()]).toEqual([503, '{"error":"Service unavailable"}']);
    const raw = await fetch(`${server.url}/selif/unseen.txt`);
    expect([raw.status, await raw.text()]).toEqual([503, 'Service unavailable\n']);
    expect(await (await fetch(`${server.url}/selif/kept.txt`)).text()).toBe('kept');
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { reason: string }).reason).toMatch(/exited .* and is being relaunched/);

    // 0.5 + 1 + 2 + 4 + 8 s of backoff: the fifth failure is reported.
    let reason = '';
    await until(
      'five failed relaunches in /readyz',
      async () => {
        const r = await fetch(`${server.url}/readyz`);
        reason = ((await r.json()) as { reason: string }).reason;
        return r.status === 503 && /5 relaunches in a row failed/.test(reason);
      },
      40_000,
    );
    expect(reason).toMatch(/still retrying every \d+ s/);
    expect(Date.now() - killedAt).toBeGreaterThan(14_000);
    for (let n = 1; n <= 5; n++) {
      expect(server.output()).toMatch(new RegExp(`relaunching the database failed \\(attempt ${n}, ${n} in a row\\)`));
    }

    // The next, slower attempt succeeds once the database can start again.
    fs.rmSync(flag);
    await waitReady(server.url, 40_000);
    expect(await (await fetch(`${server.url}/selif/kept.txt`)).text()).toBe('kept');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(databaseProcesses(dir)).toEqual([]);
  });
});

describe('ownership of the embedded database', () => {
  it('after crash → restart → SIGINT no database process is left; the restarted server owns it', async () => {
    const dir = dataDir();
    const first = await start(dir, { DEMO_SEED: 'false' });
    const launched = readRecord(dir)!;
    await killHard(first.child.pid!);
    expect(isAlive(launched.pid)).toBe(true); // the database outlives its crashed server …

    const second = await start(dir, { DEMO_SEED: 'false' });
    expect(second.output()).toMatch(/Adopted the database/);
    const adopted = readRecord(dir)!;
    expect(adopted.pid).toBe(launched.pid); // … is reused, not launched twice …
    expect(adopted.ownerPid).toBe(second.child.pid); // … and the record names its new owner.

    // Supervised like one it launched.
    await killHard(adopted.pid);
    await waitReady(second.url, 10_000);
    const relaunched = readRecord(dir)!;
    expect(relaunched.pid).not.toBe(adopted.pid);
    expect(portOf(relaunched.uri)).toBe(portOf(launched.uri));

    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(databaseProcesses(dir)).toEqual([]);
    expect(readRecord(dir)).toBeUndefined();
  });

  it('two live servers on one DATA_DIR never both own it: the lock decides, and the survivor takes over', async () => {
    const dir = dataDir();
    const a = await start(dir, { DEMO_SEED: 'false' });
    const b = await start(dir, { DEMO_SEED: 'false' });
    const port = portOf(readRecord(dir)!.uri);
    expect(readRecord(dir)!.ownerPid).toBe(a.child.pid);
    expect(b.output()).not.toMatch(/Adopted/);

    // A crashes: B notices its database is ownerless and adopts it (one database process throughout).
    const dbPid = readRecord(dir)!.pid;
    await killHard(a.child.pid!);
    await until('B owns the database', () => readRecord(dir)?.ownerPid === b.child.pid);
    expect(readRecord(dir)!.pid).toBe(dbPid);

    // C starts beside B: it shares, B stays the owner.
    const c = await start(dir, { DEMO_SEED: 'false' });
    await sleep(1000);
    expect(readRecord(dir)!.ownerPid).toBe(b.child.pid);
    expect(databaseProcesses(dir)).toEqual([dbPid]);

    // B shuts down and stops its database; C relaunches it on the same port and owns it.
    b.child.kill('SIGINT');
    expect(await b.exited).toBe(0);
    await waitReady(c.url, 10_000);
    await until('C owns the database', () => readRecord(dir)?.ownerPid === c.child.pid);
    expect(portOf(readRecord(dir)!.uri)).toBe(port);
    expect(databaseProcesses(dir)).toHaveLength(1);

    c.child.kill('SIGINT');
    expect(await c.exited).toBe(0);
    expect(databaseProcesses(dir)).toEqual([]);
  });

  it("an operator's database (MONGODB_URI) is never supervised, adopted or stopped", async () => {
    const database = { ...loadConfig({ PATH: process.env.PATH }).database, uri: 'mongodb://127.0.0.1:1' };
    const db = await launchDatabase({ dataDir: dataDir(), database, log: () => {} });
    expect(db.kind).toBe('external');
    expect(db.owned).toBe(false);
    expect(db.ensure).toBeUndefined();
    expect(DatabaseSupervisor.for(db, { log: { info() {}, warn() {}, error() {} } })).toBeUndefined();
  });
});
