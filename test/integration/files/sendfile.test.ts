/**
 * Downloads through sendfile(2) (src/storage/sendfile.ts, native/sendfile.c): the exact bytes of
 * whole files and ranges, on kept-alive and pipelined connections, and what happens when the
 * client goes or the object is shorter than its record. `npm test` builds the module first; where
 * it can be built, a missing module fails here instead of leaving the path untested.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { sendfileModule, type SendfileModule } from '../../../src/storage/sendfile';
import type { TestServer } from '../../helpers/server';
import { client, eventually, JSON_ACCEPT, metadata, startFor } from './helpers';

/** Where scripts/build-native.js can build the module (Linux, a C compiler, Node's headers). */
const buildable =
  process.platform === 'linux' &&
  spawnSync(process.env.CC || 'cc', ['--version']).status === 0 &&
  fs.existsSync(
    path.join(path.dirname(path.dirname(fs.realpathSync(process.execPath))), 'include', 'node', 'node_api.h'),
  );

/** Larger than the object cache's largest object and the small-read size: read through ObjectReader. */
const SIZE = 3 * 1024 * 1024 + 17;

function openDescriptors(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

/** Raw HTTP/1.1 requests on one connection; resolves with everything the server sent until `until` holds. */
function rawExchange(s: TestServer, requests: string, until: (got: Buffer) => boolean): Promise<Buffer> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const sock = net.connect(Number(port), '127.0.0.1', () => sock.write(requests));
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      total += c.length;
      const got = Buffer.concat(chunks, total);
      if (until(got)) {
        sock.destroy();
        resolve(got);
      }
    });
    sock.on('error', reject);
    sock.on('close', () => resolve(Buffer.concat(chunks, total)));
  });
}

describe('downloads through sendfile', () => {
  let s: TestServer;
  let mod: SendfileModule;
  let started: jest.SpyInstance;
  const data = crypto.randomBytes(SIZE);
  let objectFile: string;

  beforeAll(async () => {
    if (!buildable) return;
    const loaded = sendfileModule();
    if (!loaded) throw new Error('dist/native/sendfile.node is missing: run `npm run build` first');
    mod = loaded;
    s = await startFor('disk');
    const up = await client(s).put('/upload/big.bin', data, JSON_ACCEPT);
    expect(up.status).toBe(200);
    const [doc] = (await metadata(s)) as { objectId: string }[];
    objectFile = path.join(s.config.dataDir, 'files', 'objects', doc!.objectId.slice(0, 2), doc!.objectId);
  });
  afterAll(async () => {
    await s?.close();
  });
  beforeEach(() => {
    started = jest.spyOn(mod, 'start');
  });
  afterEach(() => jest.restoreAllMocks());

  const linux = buildable ? it : it.skip;

  linux('a whole file: exact bytes, sent by the kernel', async () => {
    const res = await client(s).get('/selif/big.bin');
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(SIZE));
    expect(res.body.equals(data)).toBe(true);
    expect(started).toHaveBeenCalledTimes(1);
    expect(started.mock.calls[0]!.slice(2)).toEqual([0, SIZE]);
  });

  linux('many at once, spread over the module’s threads: each exact', async () => {
    const all = await Promise.all(Array.from({ length: 12 }, () => client(s).get('/selif/big.bin')));
    for (const res of all) expect(res.body.equals(data)).toBe(true);
    expect(started).toHaveBeenCalledTimes(12);
  });

  linux('one download after another: the module closes each file it was handed, no descriptor is left', async () => {
    const before = openDescriptors();
    for (let i = 0; i < 30; i++) expect((await client(s).get('/selif/big.bin')).body.equals(data)).toBe(true);
    expect(started).toHaveBeenCalledTimes(30);
    // A kept-alive connection holds two (the client's end and the server's); a leak would hold 30 more.
    await eventually(async () => expect(openDescriptors()).toBeLessThanOrEqual(before + 2), 5000);
  });

  linux('a range: 206 with exactly those bytes', async () => {
    const res = await client(s).get('/selif/big.bin', { range: 'bytes=1000000-2000001' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 1000000-2000001/${SIZE}`);
    expect(res.body.equals(data.subarray(1000000, 2000002))).toBe(true);
    expect(started.mock.calls[0]!.slice(2)).toEqual([1000000, 1000002]);
  });

  linux('HEAD sends no body and does not start a transfer', async () => {
    const res = await client(s).head('/selif/big.bin');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(started).not.toHaveBeenCalled();
  });

  linux('pipelined requests on one connection: each response whole, in order', async () => {
    const req = (range: string, last = false) =>
      `GET /selif/big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=${range}\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
    const want = [data.subarray(5, 300005), data.subarray(SIZE - 70000), data.subarray(0, 100000)];
    // All three sent at once; the last asks the server to close after it.
    const wire = await rawExchange(s, req('5-300004') + req('-70000') + req('0-99999', true), () => false);
    // Parse the three responses back out of the stream.
    let at = 0;
    for (const body of want) {
      const headEnd = wire.indexOf('\r\n\r\n', at);
      expect(headEnd).toBeGreaterThan(0);
      const head = wire.subarray(at, headEnd).toString('latin1');
      expect(head).toMatch(/^HTTP\/1\.1 206 /);
      const length = Number(/content-length: (\d+)/i.exec(head)![1]);
      expect(length).toBe(body.length);
      const got = wire.subarray(headEnd + 4, headEnd + 4 + length);
      expect(got.equals(body)).toBe(true);
      at = headEnd + 4 + length;
    }
    expect(started).toHaveBeenCalledTimes(3);
  });

  linux('a client that goes mid-transfer: the transfer ends, no descriptor is left, the server serves on', async () => {
    const before = openDescriptors();
    const big = crypto.randomBytes(48 * 1024 * 1024);
    expect((await client(s).put('/upload/huge.bin', big, JSON_ACCEPT)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      // Reads the head and a little of the body, then stops reading, then closes.
      await rawExchange(s, 'GET /selif/huge.bin HTTP/1.1\r\nHost: x\r\n\r\n', (got) => got.length > 256 * 1024);
    }
    await eventually(async () => expect(openDescriptors()).toBeLessThanOrEqual(before + 2), 5000);
    const res = await client(s).get('/selif/big.bin');
    expect(res.body.equals(data)).toBe(true);
  });

  linux('a client that reads slowly: the transfer waits for room and goes on, every byte exact', async () => {
    const big = crypto.randomBytes(24 * 1024 * 1024);
    expect((await client(s).put('/upload/slow.bin', big, JSON_ACCEPT)).status).toBe(200);
    const { port } = new URL(s.url);
    const body = await new Promise<Buffer>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/selif/slow.bin' }, (res) => {
        const chunks: Buffer[] = [];
        let got = 0;
        let pauses = 0;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          got += c.length;
          // Stops reading three times, long enough for the socket to fill (sendfile: EAGAIN).
          if (pauses < 3 && got > (pauses + 1) * 4 * 1024 * 1024) {
            pauses++;
            res.pause();
            setTimeout(() => res.resume(), 150);
          }
        });
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    expect(body.length).toBe(big.length);
    expect(body.equals(big)).toBe(true);
  });

  linux('an object shorter than its record: the connection is cut, never a short body taken as whole', async () => {
    const copy = crypto.randomBytes(SIZE);
    expect((await client(s).put('/upload/cut.bin', copy, JSON_ACCEPT)).status).toBe(200);
    const doc = (await metadata(s)).find((d) => d._id === 'cut.bin') as { objectId: string };
    const file = path.join(s.config.dataDir, 'files', 'objects', doc.objectId.slice(0, 2), doc.objectId);
    fs.truncateSync(file, 1000);
    const wire = await rawExchange(s, 'GET /selif/cut.bin HTTP/1.1\r\nHost: x\r\n\r\n', () => false);
    const headEnd = wire.indexOf('\r\n\r\n');
    expect(wire.subarray(0, headEnd).toString('latin1')).toMatch(/content-length: 3145745/i);
    // The head promised SIZE bytes; the connection closed after the 1,000 that exist.
    expect(wire.length - headEnd - 4).toBe(1000);
    expect(fs.existsSync(objectFile)).toBe(true);
  });
});

describe('FILES_SENDFILE=false', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor('disk', { FILES_SENDFILE: 'false' });
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it('reads and writes through Node, with the same bytes', async () => {
    const mod = sendfileModule();
    const started = mod ? jest.spyOn(mod, 'start') : undefined;
    const data = crypto.randomBytes(SIZE);
    expect((await client(s).put('/upload/plain.bin', data, JSON_ACCEPT)).status).toBe(200);
    const res = await client(s).get('/selif/plain.bin');
    expect(res.body.equals(data)).toBe(true);
    if (started) expect(started).not.toHaveBeenCalled();
  });
});
