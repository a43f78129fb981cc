/**
 * Faults (issue 5, docs/files-api.md §13): a client that disconnects mid-upload leaves nothing; an
 * upload over the limit is refused early and leaves nothing; a server killed with SIGKILL
 * mid-upload and started again shows no metadata for it, removes its temporary bytes at start-up
 * and serves every other file intact (a real child process: `node dist/main.js`).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { withDatabaseName } from '../../../src/server';
import { baseEnv, ServerProcess, startServerProcess } from '../../helpers/child';
import { ensureBuilt } from '../../helpers/dist';
import { TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { BACKENDS, client, eventually, metadata, request, startFor, storeCounts } from './helpers';

/** Opens a raw connection, sends the request head and `partBytes` of the body, and leaves it open. */
function startUpload(url: string, head: string, partBytes: number): Promise<net.Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname, () => {
      sock.write(head);
      sock.write(Buffer.alloc(partBytes, 0x41), () => resolve(sock));
    });
    sock.on('error', reject);
  });
}

const putHead = (name: string, length: number, extra = '') =>
  `PUT /upload/${name} HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n${extra}\r\n`;

describe.each(BACKENDS)('client faults on %s', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor(backend, { FILES_MAX_SIZE: String(8 * 1024 * 1024) });
    await new Factory(s).upload('existing.txt', 'I stay');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a PUT whose client disconnects mid-body leaves no metadata and no bytes', async () => {
    const before = await storeCounts(s);
    const sock = await startUpload(s.url, putHead('cut.bin', 4 * 1024 * 1024), 1024 * 1024);
    // Let the server write some of it to the store before the client vanishes.
    await eventually(async () => expect((await storeCounts(s)).temporary).toBeGreaterThan(0));
    sock.destroy();
    await eventually(async () => expect(await storeCounts(s)).toEqual(before));
    expect((await metadata(s)).map((d) => d.filename)).toEqual(['existing.txt']);
    expect((await client(s).get('/selif/existing.txt')).text).toBe('I stay');
  });

  it('an overwrite whose client disconnects leaves the old file intact', async () => {
    await new Factory(s).upload('ow.txt', 'old bytes', { 'files-delete-key': 'k' });
    const before = await storeCounts(s);
    const sock = await startUpload(s.url, putHead('ow.txt', 2 * 1024 * 1024, 'Files-Delete-Key: k\r\n'), 512 * 1024);
    await new Promise((r) => setTimeout(r, 200));
    sock.destroy();
    await eventually(async () => expect(await storeCounts(s)).toEqual(before));
    expect((await client(s).get('/selif/ow.txt')).text).toBe('old bytes');
  });

  it('multipart and paste uploads cut mid-body leave nothing', async () => {
    const before = await storeCounts(s);
    const count = (await metadata(s)).length;
    const boundary = 'b0undary';
    const mp =
      `POST /upload HTTP/1.1\r\nHost: x\r\nX-Requested-With: t\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 3000000\r\n\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`;
    const paste =
      'POST /upload HTTP/1.1\r\nHost: x\r\nX-Requested-With: t\r\n' +
      'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 3000000\r\n\r\ncontent=';
    for (const head of [mp, paste]) {
      const sock = await startUpload(s.url, head, 300 * 1024);
      await new Promise((r) => setTimeout(r, 150));
      sock.destroy();
    }
    await eventually(async () => expect(await storeCounts(s)).toEqual(before));
    expect((await metadata(s)).length).toBe(count);
  });

  it(`an upload over the limit is refused while the client is still sending, with 413 and Connection: \
close`, async () => {
    const before = await storeCounts(s);
    const limit = 8 * 1024 * 1024;
    const u = new URL(s.url);
    const { status, sent, headers } = await new Promise<{ status: number; sent: number; headers: string }>(
      (resolve, reject) => {
        const sock = net.connect(Number(u.port), u.hostname);
        let sent = 0;
        let answer = '';
        let done = false;
        const chunk = Buffer.alloc(256 * 1024, 0x42);
        const pump = () => {
          while (!done && sent < 10 * limit) {
            const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
            sent += chunk.length;
            if (!sock.write(frame)) return void sock.once('drain', pump);
          }
        };
        sock.on('data', (d: Buffer) => {
          answer += d.toString('latin1');
          const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
          if (m && answer.includes('\r\n\r\n') && !done) {
            done = true;
            resolve({ status: Number(m[1]), sent, headers: answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase() });
            sock.destroy();
          }
        });
        sock.on('error', (err) => {
          if (!done) reject(err);
        });
        sock.on('connect', () => {
          sock.write('PUT /upload/endless.bin HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
          pump();
        });
      },
    );
    expect(status).toBe(413);
    expect(headers).toContain('connection: close');
    // Refused long before the client would have finished (it meant to send 10× the limit).
    expect(sent).toBeLessThan(3 * limit);
    await eventually(async () => expect(await storeCounts(s)).toEqual(before));
    expect((await metadata(s)).map((d) => d.filename)).not.toContain('endless.bin');
  });
});

/** Sends a request head, waits for the first status line, then (on 100) sends `body`. */
function expectContinue(url: string, head: string, body: Buffer): Promise<string[]> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const statuses: string[] = [];
    let buf = '';
    const sock = net.connect(Number(u.port), u.hostname, () => sock.write(head));
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = buf.slice(0, buf.indexOf('\r\n'));
        const headers = buf.slice(0, end).toLowerCase();
        statuses.push(status);
        const len = /content-length: (\d+)/.exec(headers);
        buf = buf.slice(end + 4 + (status.includes(' 100 ') ? 0 : Number(len?.[1] ?? 0)));
        if (status.includes(' 100 ')) sock.write(body);
        else {
          sock.destroy();
          return resolve(statuses);
        }
      }
    });
    sock.on('error', reject);
  });
}

describe('Expect: 100-continue (curl -T with files over 1 MiB)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor('disk', { FILES_MAX_SIZE: '1000' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a body over the limit is refused with 413 instead of 100 Continue', async () => {
    const head = 'PUT /upload/big.bin HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n';
    expect(await expectContinue(s.url, head, Buffer.alloc(5000))).toEqual(['HTTP/1.1 413 Payload Too Large']);
  });

  it('an acceptable upload gets 100 Continue, then its answer', async () => {
    const head = 'PUT /upload/ok.txt HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n';
    expect(await expectContinue(s.url, head, Buffer.from('hello'))).toEqual([
      'HTTP/1.1 100 Continue',
      'HTTP/1.1 200 OK',
    ]);
    expect((await client(s).get('/selif/ok.txt')).text).toBe('hello');
  });

  it("other routes keep Node's immediate 100 Continue", async () => {
    const body = JSON.stringify({ query: '{ serverInfo { version } }' });
    const head =
      `POST /graphql HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    expect(await expectContinue(s.url, head, Buffer.from(body))).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 200 OK']);
  });
});

describe.each(BACKENDS)('SIGKILL mid-upload on %s (real process)', (backend) => {
  const dbName = `agora_test_kill_${crypto.randomBytes(5).toString('hex')}`;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let conn: mongoose.Connection;
  let proc: ServerProcess | undefined;

  beforeAll(async () => {
    ensureBuilt();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-kill-'));
    const uri = withDatabaseName(process.env.MONGODB_URI!, dbName);
    env = baseEnv({
      MONGODB_URI: uri,
      DATA_DIR: dataDir,
      FILES_STORAGE: backend,
      FILES_CLEANUP_INTERVAL: '0',
      JWT_SECRET: 'kill-test-secret-0123456789-0123456789-abc',
    });
    conn = await mongoose.createConnection(uri).asPromise();
  }, 180_000);

  afterAll(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
    await conn?.dropDatabase().catch(() => {});
    await conn?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Temporary bytes the store holds: disk tmp files, or GridFS pending uploads and chunks without a file document. */
  async function temporary(): Promise<number> {
    if (backend === 'disk') {
      const tmp = path.join(dataDir, 'files', 'tmp');
      return fs.existsSync(tmp) ? fs.readdirSync(tmp).length : 0;
    }
    const pending = await conn.collection('filedata.pending').countDocuments();
    const fileIds = new Set(
      (
        await conn
          .collection('filedata.files')
          .find({}, { projection: { _id: 1 } })
          .toArray()
      ).map((d) => String(d._id)),
    );
    const orphanChunks = (await conn.collection('filedata.chunks').distinct('files_id')).filter(
      (id) => !fileIds.has(String(id)),
    ).length;
    return pending + orphanChunks;
  }

  it('shows no metadata for the partial upload, removes its bytes at start-up, serves the rest intact', async () => {
    proc = await startServerProcess(env);
    const files: Record<string, Buffer> = {
      'small.txt': Buffer.from('small file\n'),
      'medium.bin': crypto.randomBytes(300 * 1024),
      'large.bin': crypto.randomBytes(3 * 1024 * 1024 + 17),
    };
    for (const [name, bytes] of Object.entries(files)) {
      const r = await request(proc.url, 'PUT', `/upload/${name}`, {
        body: bytes,
        headers: { accept: 'application/json' },
      });
      expect(r.status).toBe(200);
    }

    // An upload in flight: 2 MiB of a declared 64 MiB.
    const sock = await startUpload(proc.url, putHead('partial.bin', 64 * 1024 * 1024), 2 * 1024 * 1024);
    await eventually(async () => expect(await temporary()).toBeGreaterThan(0), 15_000);
    proc.child.kill('SIGKILL');
    expect(await proc.exited).toBe('SIGKILL');
    sock.destroy();

    const names = (await conn.collection('files').find({}).toArray()).map((d) => d.filename).sort();
    expect(names).toEqual(Object.keys(files).sort());
    expect(await temporary()).toBeGreaterThan(0); // the crash left them behind

    proc = await startServerProcess(env);
    expect(await temporary()).toBe(0); // removed at start-up, before the server says it listens
    if (backend === 'disk') {
      // The partial upload's bytes (written in place, under objects/) went with its marker.
      const objects = path.join(dataDir, 'files', 'objects');
      const count = fs.readdirSync(objects).reduce((n, d) => n + fs.readdirSync(path.join(objects, d)).length, 0);
      expect(count).toBe(Object.keys(files).length);
    }
    for (const [name, bytes] of Object.entries(files)) {
      const r = await request(proc.url, 'GET', `/selif/${name}`);
      expect([name, r.status]).toEqual([name, 200]);
      expect(crypto.createHash('sha256').update(r.body).digest('hex')).toBe(
        crypto.createHash('sha256').update(bytes).digest('hex'),
      );
      const info = await request(proc.url, 'GET', `/${name}`, { headers: { accept: 'application/json' } });
      expect(info.json()).toMatchObject({ filename: name, size: String(bytes.length) });
    }
    expect((await request(proc.url, 'GET', '/selif/partial.bin')).status).toBe(404);
    expect((await request(proc.url, 'PUT', '/upload/partial.bin', { body: 'now whole' })).status).toBe(200);

    proc.child.kill('SIGTERM');
    await proc.exited;
  }, 180_000);
});
