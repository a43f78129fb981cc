/**
 * The real process on the embedded default: it launches its own database under DATA_DIR, keeps
 * data across restarts, stops the database on SIGTERM, shares it with the command line, and
 * refuses bad configuration listing every problem.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { isAlive } from '../../src/db/server-process';
import { baseEnv, startServerProcess } from '../helpers/child';
import { DIST_CLI, DIST_MAIN, ensureBuilt, ROOT } from '../helpers/dist';

jest.setTimeout(180_000);

let dataDir: string;
beforeAll(() => {
  ensureBuilt();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-process-'));
});
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function record(): { uri: string; pid: number } {
  return JSON.parse(fs.readFileSync(path.join(dataDir, 'db', 'server.json'), 'utf8')) as { uri: string; pid: number };
}

describe('the server process on the embedded database', () => {
  it('launches the database, keeps data across restarts, and stops it on SIGTERM', async () => {
    const env = baseEnv({ DATA_DIR: dataDir, DEMO_SEED: 'false' });
    const first = await startServerProcess(env);
    expect(first.output()).toMatch(/Database: (FerretDB|mongod)/);
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);

    const { uri, pid } = record();
    expect(isAlive(pid)).toBe(true);
    const client = await MongoClient.connect(`${uri}/agora`);
    await client.db().collection('restart_probe').insertOne({ marker: 'kept' });
    await client.close();

    // A command line run meanwhile reuses the running database instead of starting another.
    const cli = spawnSync(process.execPath, [DIST_CLI, 'db:status'], { cwd: ROOT, env, encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toMatch(/answers/);
    expect(cli.stderr).not.toMatch(/Started/);
    expect(isAlive(pid)).toBe(true);
    expect(record().pid).toBe(pid);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(isAlive(pid)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'db', 'server.json'))).toBe(false);

    const second = await startServerProcess(env);
    const again = record();
    const client2 = await MongoClient.connect(`${again.uri}/agora`);
    expect(
      await client2
        .db()
        .collection('restart_probe')
        .findOne({}, { projection: { _id: 0 } }),
    ).toEqual({ marker: 'kept' });
    await client2.close();
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(isAlive(again.pid)).toBe(false);
  });

  it('finishes a request in flight on SIGTERM, refuses new ones, then exits', async () => {
    const http = await import('node:http');
    const server = await startServerProcess(baseEnv({ DATA_DIR: dataDir, DEMO_SEED: 'false', SHUTDOWN_TIMEOUT: '20' }));
    // A slow upload: its body arrives over about a second, across the SIGTERM.
    const body = Buffer.alloc(64 * 1024, 'a');
    const chunks = 8;
    let lateRequest = 'not tried';
    const res = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${server.url}/upload/inflight.txt`,
        { method: 'PUT', headers: { 'content-length': body.length * chunks } },
        (r) => {
          let text = '';
          r.on('data', (d) => (text += d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      let sent = 0;
      const tick = setInterval(() => {
        req.write(body);
        sent += 1;
        if (sent === 2) {
          server.child.kill('SIGTERM');
          // A request that starts after the signal is refused cleanly (closed listener or 503).
          setTimeout(() => {
            fetch(`${server.url}/healthz`).then(
              (r) => (lateRequest = `status ${r.status}`),
              () => (lateRequest = 'refused'),
            );
          }, 150);
        }
        if (sent === chunks) {
          clearInterval(tick);
          req.end();
        }
      }, 120);
    });
    const done = await res;
    expect(done.status).toBe(200);
    expect(done.text).toBe(`${server.url}/inflight.txt\n`);
    expect(await server.exited).toBe(0);
    expect(['refused', 'status 503']).toContain(lateRequest);
  });

  it('the command line launches the database for its own run when no server is running', () => {
    const env = baseEnv({ DATA_DIR: dataDir });
    const cli = spawnSync(process.execPath, [DIST_CLI, 'db:status'], { cwd: ROOT, env, encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(cli.stderr).toMatch(/Started/);
    expect(fs.existsSync(path.join(dataDir, 'db', 'server.json'))).toBe(false);
  });

  it('refuses to start with invalid variables, listing every one', () => {
    const env = baseEnv({
      DATA_DIR: dataDir,
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      JWT_SECRET: 'short',
      FILES_MAX_SIZE: '-1',
    });
    const run = spawnSync(process.execPath, [DIST_MAIN], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    for (const name of ['PORT', 'LOG_LEVEL', 'JWT_SECRET', 'FILES_MAX_SIZE'])
      expect(run.stderr).toMatch(new RegExp(`- ${name}: `));
  });

  it('the command line rejects unknown commands with a non-zero exit', () => {
    const run = spawnSync(process.execPath, [DIST_CLI, 'no:such'], {
      cwd: ROOT,
      env: baseEnv({ DATA_DIR: dataDir }),
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/Unknown command: no:such/);
  });
});
