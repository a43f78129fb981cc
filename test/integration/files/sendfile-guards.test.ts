/**
 * The guards of downloads through sendfile(2) (src/storage/sendfile.ts, native/sendfile.c,
 * ObjectReader.sendTo in src/storage/disk.ts), each with a test that fails without it:
 *   - never on a TLS socket (the kernel would send the file's plaintext into the TLS stream);
 *   - never while bytes of the response are still buffered in Node (they would arrive after the body);
 *   - a response closed by the server mid-file ends the transfer (cancel), and one whose client goes
 *     ends it too, with every descriptor closed;
 *   - a file truncated mid-send cuts the connection (never a short body taken as whole, never a hang);
 *     a file deleted mid-send is sent whole (the descriptor keeps its bytes).
 * A real disk store and real HTTP(S) servers on loopback; no database.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DiskStore, ObjectReader } from '../../../src/storage';
import { directSocketFd, sendfileModule, type SendfileModule } from '../../../src/storage/sendfile';

const buildable =
  process.platform === 'linux' &&
  spawnSync(process.env.CC || 'cc', ['--version']).status === 0 &&
  fs.existsSync(
    path.join(path.dirname(path.dirname(fs.realpathSync(process.execPath))), 'include', 'node', 'node_api.h'),
  );
const linux = buildable ? it : it.skip;

const MiB = 1024 * 1024;
const BIG = 32 * MiB;

let root: string;
let store: DiskStore;
let mod: SendfileModule;
let started: jest.SpyInstance;
const data = crypto.randomBytes(BIG);

async function put(bytes: Buffer): Promise<string> {
  const temp = await store.create();
  await temp.write(bytes);
  await temp.commit();
  await temp.settle();
  return temp.id;
}

function openDescriptors(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

async function eventually(check: () => void, timeoutMs = 5000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    try {
      return check();
    } catch (err) {
      if (Date.now() - t0 > timeoutMs) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** How each response's sendTo ended: 'sent', or its error's message. */
let outcomes: Promise<string>[];

/** Serves object `id` (all `size` bytes) as read.routes does: head, sendTo, end, or destroy on failure. */
function download(id: string, size: number, res: http.ServerResponse): Promise<string> {
  const outcome = store.openRead(id, { start: 0, end: size - 1 }).then(async (reader) => {
    res.writeHead(200, { 'content-length': String(size), 'content-type': 'application/octet-stream' });
    try {
      await (reader as ObjectReader).sendTo(res);
      res.end();
      return 'sent';
    } catch (err) {
      res.destroy();
      return (err as Error).message;
    }
  });
  outcomes.push(outcome);
  return outcome;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listen(server: http.Server | https.Server, handler: Handler): Promise<{ port: number; close(): void }> {
  server.on('request', handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

/** A raw GET on its own connection: `onData` sees every byte as it comes; resolves with all of them at close. */
function rawGet(port: number, onData: (got: number, sock: net.Socket) => void = () => {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const sock = net.connect(port, '127.0.0.1', () =>
      sock.write('GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      got += c.length;
      onData(got, sock);
    });
    sock.on('error', reject);
    sock.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

/** The body of a raw response, and the length its head promised. */
function parse(wire: Buffer): { length: number; body: Buffer } {
  const end = wire.indexOf('\r\n\r\n');
  const length = Number(/content-length: (\d+)/i.exec(wire.subarray(0, end).toString('latin1'))![1]);
  return { length, body: wire.subarray(end + 4) };
}

beforeAll(async () => {
  if (!buildable) return;
  const loaded = sendfileModule();
  if (!loaded) throw new Error('the sendfile module is missing: run `npm run build` first');
  mod = loaded;
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-sendfile-guards-'));
  store = await DiskStore.open(root, { cacheBytes: 0, cacheMaxObject: 0, sendfile: true });
  // One download first: the module's threads and their descriptors start with it, and stay.
  const id = await put(data.subarray(0, MiB));
  outcomes = [];
  const server = await listen(http.createServer(), (_req, res) => void download(id, MiB, res));
  expect(parse(await rawGet(server.port)).body.equals(data.subarray(0, MiB))).toBe(true);
  server.close();
});
afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  outcomes = [];
  if (mod) started = jest.spyOn(mod, 'start');
});
afterEach(() => jest.restoreAllMocks());

describe('never on a TLS socket', () => {
  let dir: string;
  beforeAll(() => {
    if (!buildable) return;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-tls-'));
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-days',
      '1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ]);
    if (made.status !== 0) throw new Error(`openssl could not make a test certificate: ${made.stderr}`);
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  linux('a download over HTTPS gets its exact bytes through Node, and sendfile is not started', async () => {
    const id = await put(data.subarray(0, 3 * MiB));
    const tls = https.createServer({
      key: fs.readFileSync(path.join(dir, 'key.pem')),
      cert: fs.readFileSync(path.join(dir, 'cert.pem')),
    });
    let fdOfTls: number | undefined = -1;
    const server = await listen(tls, (_req, res) => {
      fdOfTls = directSocketFd(res);
      void download(id, 3 * MiB, res);
    });
    try {
      const body = await new Promise<Buffer>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port: server.port, path: '/x', rejectUnauthorized: false, agent: false }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve(Buffer.concat(chunks)));
            res.on('error', reject);
          })
          .on('error', reject);
      });
      expect(fdOfTls).toBeUndefined();
      expect(body.equals(data.subarray(0, 3 * MiB))).toBe(true);
      expect(started).not.toHaveBeenCalled();
      expect(await Promise.all(outcomes)).toEqual(['sent']);
    } finally {
      server.close();
    }
  });
});

describe('never while bytes of the response are buffered in Node', () => {
  linux('a socket with bytes waiting in Node has no direct descriptor; once they are written, it has', async () => {
    const seen: (number | undefined)[] = [];
    const server = await listen(http.createServer(), (_req, res) => {
      res.writeHead(200, { 'content-length': String(8 * MiB) });
      // The client does not read yet: most of this stays in Node's buffer.
      res.write(data.subarray(0, 8 * MiB), () => {
        seen.push(directSocketFd(res));
        res.end();
      });
      seen.push(directSocketFd(res));
    });
    try {
      const wire = await rawGet(server.port, (got, sock) => {
        if (got < 64 * 1024) {
          sock.pause();
          setTimeout(() => sock.resume(), 300);
        }
      });
      expect(parse(wire).body.equals(data.subarray(0, 8 * MiB))).toBe(true);
      expect(seen).toHaveLength(2);
      expect(seen[0]).toBeUndefined();
      expect(typeof seen[1]).toBe('number');
    } finally {
      server.close();
    }
  });
});

describe('a transfer that cannot finish', () => {
  linux('a response the server closes mid-file while the client waits: the transfer stops at once', async () => {
    const id = await put(data);
    const before = openDescriptors();
    let response!: http.ServerResponse;
    const server = await listen(http.createServer(), (_req, res) => {
      response = res;
      void download(id, BIG, res);
    });
    try {
      let client: net.Socket | undefined;
      const wire = rawGet(server.port, (got, sock) => {
        if (!client && got > 256 * 1024) {
          // The client stops reading but stays connected: the transfer waits for room.
          client = sock;
          sock.pause();
        }
      });
      await eventually(() => expect(client).toBeDefined());
      await new Promise((r) => setTimeout(r, 300));
      // A timeout of the server's, say: Node closes the response, and the transfer must end with it,
      // while the client still reads nothing (its descriptors, the module's copies, are closed).
      response.destroy();
      await eventually(() => expect(openDescriptors()).toBeLessThanOrEqual(before + 1));
      client!.resume();
      const { length, body } = parse(await wire);
      expect(length).toBe(BIG);
      // Only what the kernel's buffers held when it stopped, far from the whole file.
      expect(body.length).toBeLessThan(BIG / 2);
      expect(body.equals(data.subarray(0, body.length))).toBe(true);
      expect(await Promise.all(outcomes)).toEqual(['the response closed before the object was sent']);
    } finally {
      server.close();
    }
  });

  linux('a client that goes mid-file: the transfer ends, every descriptor is closed', async () => {
    const id = await put(data);
    const before = openDescriptors();
    const server = await listen(http.createServer(), (_req, res) => void download(id, BIG, res));
    try {
      const wire = await rawGet(server.port, (got, sock) => {
        if (got > 256 * 1024) sock.destroy();
      });
      expect(wire.length).toBeLessThan(BIG);
      const [outcome] = await Promise.all(outcomes);
      expect(outcome).not.toBe('sent');
      await eventually(() => expect(openDescriptors()).toBeLessThanOrEqual(before + 1));
    } finally {
      server.close();
    }
  });

  linux('a file truncated mid-send: the connection is cut after the bytes that exist, never a hang', async () => {
    const id = await put(data);
    const server = await listen(http.createServer(), (_req, res) => void download(id, BIG, res));
    try {
      let truncated = false;
      const wire = await rawGet(server.port, (got, sock) => {
        if (!truncated && got > 256 * 1024) {
          truncated = true;
          sock.pause();
          setTimeout(() => {
            fs.truncateSync(store.objectPath(id), 8 * MiB);
            sock.resume();
          }, 300);
        }
      });
      const { length, body } = parse(wire);
      expect(length).toBe(BIG);
      // Whatever was sent before the truncation, then nothing past the new end.
      expect(body.length).toBeLessThan(BIG);
      expect(body.equals(data.subarray(0, body.length))).toBe(true);
      expect(started).toHaveBeenCalledTimes(1);
      expect(await Promise.all(outcomes)).toEqual([`object ${id} is shorter than its metadata`]);
    } finally {
      server.close();
    }
  });

  linux('a file deleted mid-send: the download goes on to its last byte', async () => {
    const id = await put(data);
    const server = await listen(http.createServer(), (_req, res) => void download(id, BIG, res));
    try {
      let deleted = false;
      const wire = await rawGet(server.port, (got, sock) => {
        if (!deleted && got > 256 * 1024) {
          deleted = true;
          sock.pause();
          setTimeout(() => {
            void store.release(id).then(() => {
              expect(fs.existsSync(store.objectPath(id))).toBe(false);
              sock.resume();
            });
          }, 300);
        }
        if (got >= BIG + 100) sock.end();
      });
      const { length, body } = parse(wire);
      expect(length).toBe(BIG);
      expect(body.length).toBe(BIG);
      expect(body.equals(data)).toBe(true);
      expect(started).toHaveBeenCalledTimes(1);
      expect(await Promise.all(outcomes)).toEqual(['sent']);
    } finally {
      server.close();
    }
  });
});
