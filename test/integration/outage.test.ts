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

jest.setTimeout(120_000);

let dir: string;
let db: LaunchedDatabase;
let agora: Agora;
let url: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-outage-'));
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dir, LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, FILES_CLEANUP_INTERVAL: '0', DEMO_SEED: 'false' });
  db = await launchDatabase({ dataDir: dir, database: { ...config.database, uri: undefined }, log: () => {} });
  agora = await createAgora(config, { mongoUri: withDatabaseName(db.uri, 'agora'), databaseKind: db.kind, jwtSecret: TEST_JWT_SECRET, processMetrics: false });
  await agora.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = agora.app.server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await agora?.close().catch(() => {});
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function readyStatus(): Promise<number> {
  return (await fetch(`${url}/readyz`)).status;
}

it('answers 503 on /readyz within seconds of a database outage and recovers when it returns', async () => {
  expect(await readyStatus()).toBe(200);
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
});
