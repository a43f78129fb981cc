/**
 * Database outage: the launched database process is killed under a running app, then started
 * again on the same port and data; the app must notice within seconds and recover by itself.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { launchDatabase, LaunchedDatabase } from '../../src/db/launcher';
import { isAlive, waitForPort } from '../../src/db/server-process';
import { createAgora, Agora, withDatabaseName } from '../../src/server';
import { TEST_JWT_SECRET } from '../helpers/server';
import { Factory } from '../helpers/factories';

jest.setTimeout(120_000);

let dir: string;
let db: LaunchedDatabase;
let agora: Agora;
let url: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-outage-'));
  const config = loadConfig({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    FILES_CLEANUP_INTERVAL: '0',
    DEMO_SEED: 'false',
  });
  db = await launchDatabase({ dataDir: dir, database: { ...config.database, uri: undefined }, log: () => {} });
  agora = await createAgora(config, {
    mongoUri: withDatabaseName(db.uri, 'agora'),
    databaseKind: db.kind,
    jwtSecret: TEST_JWT_SECRET,
    processMetrics: false,
  });
  await agora.app.listen({ host: '127.0.0.1', port: 0 });
  await agora.start();
  const addr = agora.app.server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await agora?.close().catch(() => {});
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Probe {
  name: string;
  path: string;
  init?: RequestInit;
  /** The front door's error format for a 503. */
  expect503(type: string | null, body: string): void;
}

const beta503 = (type: string | null, body: string) => {
  expect(type).toBe('application/json; charset=utf-8');
  expect(JSON.parse(body)).toEqual([{ message: expect.any(String) }]);
};
const files503 = (json: boolean) => (type: string | null, body: string) => {
  expect(type).toBe(json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8');
  expect(body).toBe(json ? '{"error":"Service unavailable"}' : 'Service unavailable\n');
};
const graphql503 = (type: string | null, body: string) => {
  expect(type).toMatch(/^application\/json/);
  const parsed = JSON.parse(body) as { errors: { extensions: { code: string } }[] };
  expect(parsed.errors.map((e) => e.extensions.code)).toContain('SERVICE_UNAVAILABLE');
};

/** Requests that need the database, one or more per front door. */
function probes(token: string, file: string): Probe[] {
  const json = { 'content-type': 'application/json' };
  return [
    { name: 'REST listing', path: '/api/beta/topics', expect503: beta503 },
    { name: 'REST topic', path: '/api/beta/topic/1', expect503: beta503 },
    { name: 'REST user', path: '/api/beta/user/alice', expect503: beta503 },
    {
      name: 'REST login',
      path: '/api/beta/login',
      init: { method: 'POST', headers: json, body: '{"username":"alice","password":"x"}' },
      expect503: beta503,
    },
    {
      name: 'REST whoami',
      path: '/api/beta/whoami',
      init: { headers: { authorization: `Bearer ${token}` } },
      expect503: beta503,
    },
    {
      name: 'GraphQL query',
      path: '/graphql',
      init: { method: 'POST', headers: json, body: '{"query":"{ topics { edges { node { id } } } }"}' },
      expect503: graphql503,
    },
    {
      name: 'GraphQL viewer',
      path: '/graphql',
      init: {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${token}` },
        body: '{"query":"{ viewer { username } }"}',
      },
      expect503: graphql503,
    },
    {
      name: 'GraphQL login',
      path: '/graphql',
      init: {
        method: 'POST',
        headers: json,
        body: '{"query":"mutation { login(username: \\"alice\\", password: \\"x\\") { token } }"}',
      },
      expect503: graphql503,
    },
    // A file this process has not seen (uploaded through another instance, or never): only the database knows.
    {
      name: 'file info',
      path: '/elsewhere.txt',
      init: { headers: { accept: 'application/json' } },
      expect503: files503(true),
    },
    { name: 'raw file', path: '/selif/elsewhere.txt', expect503: files503(false) },
    { name: 'upload', path: '/upload/new.txt', init: { method: 'PUT', body: 'hello' }, expect503: files503(false) },
    {
      name: 'delete',
      path: `/${file}`,
      init: { method: 'DELETE', headers: { 'files-delete-key': 'k', accept: 'application/json' } },
      expect503: files503(true),
    },
  ];
}

async function readyStatus(): Promise<number> {
  return (await fetch(`${url}/readyz`)).status;
}

it(`answers 503 on /readyz and on every request that needs the database (each in its front door's format) \
within seconds of an outage, and recovers when it returns`, async () => {
  expect(await readyStatus()).toBe(200);
  const f = new Factory({ agora, url });
  const { token } = await f.user('alice');
  const file = ((await f.upload('kept.txt', 'kept')) as { filename: string }).filename;
  const pid = db.pid!;
  // The exact command line, to start the same server on the same port and files afterwards.
  const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20));

  const started = Date.now();
  const res = await fetch(`${url}/readyz`);
  expect(res.status).toBe(503);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(await res.json()).toEqual({ status: 'unavailable', reason: expect.any(String) });
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  // Requests that need the database answer 503 in their front door's format, quickly.
  const during = await Promise.all(
    probes(token, file).map(async (p) => {
      const started = Date.now();
      const r = await fetch(`${url}${p.path}`, p.init);
      return {
        p,
        status: r.status,
        ms: Date.now() - started,
        type: r.headers.get('content-type'),
        body: await r.text(),
      };
    }),
  );
  for (const { p, status, ms, type, body } of during) {
    expect([p.name, status]).toEqual([p.name, 503]);
    expect(ms).toBeLessThan(8000);
    p.expect503(type, body);
  }
  // A file this process uploaded is in its metadata cache (src/files/metadata-cache.ts) and needs no database.
  const cached = await fetch(`${url}/selif/${file}`);
  expect([cached.status, await cached.text()]).toEqual([200, 'kept']);

  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore', detached: true });
  child.unref();
  (db as { pid?: number }).pid = child.pid;
  db.stop = async () => {
    if (child.pid && isAlive(child.pid)) process.kill(child.pid, 'SIGTERM');
  };
  await waitForPort(Number(new URL(db.uri).port), 30_000);

  const deadline = Date.now() + 30_000;
  let status = 0;
  while (Date.now() < deadline && (status = await readyStatus()) !== 200) await new Promise((r) => setTimeout(r, 250));
  expect(status).toBe(200);

  // Everything works again, with no restart.
  for (const p of probes(token, file)) {
    if (p.name === 'REST login' || p.name === 'GraphQL login' || p.name === 'delete') continue;
    const r = await fetch(`${url}${p.path}`, p.init);
    // Topic 1 and elsewhere.txt do not exist: the database answers that again.
    const missing = p.name === 'REST topic' || p.name === 'file info' || p.name === 'raw file';
    expect([p.name, r.status]).toEqual([p.name, missing ? 404 : 200]);
  }
});
