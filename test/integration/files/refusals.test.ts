/**
 * Refusals before the body is read reach the client (docs/files-api.md §3): a body up to 1 MiB is
 * read and discarded first, so a client that sends its body after the headers (curl, Go, browsers)
 * reads the status instead of EPIPE or a reset, and the connection stays usable; a larger body is
 * refused at once with `Connection: close`. Raw sockets (node:net), one case per refusal kind.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, TestServer } from '../../helpers/server';

interface Exchange {
  /** Everything the server sent, latin1. */
  data: string;
  /** A socket error (EPIPE, ECONNRESET), if any. */
  error?: string;
  /** The server closed the connection. */
  closed: boolean;
}

const MiB = 1024 * 1024;
const FOLLOW_UP = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

/**
 * Sends `head`, waits (the server decides its refusal meanwhile), then sends `body` in 16 KiB
 * writes, then a second request on the same connection; collects the answers until two arrived,
 * the server closed, or 5 s passed.
 */
function exchange(s: TestServer, head: string, body: Buffer, pauseMs = 150): Promise<Exchange> {
  const port = Number(new URL(s.url).port);
  return new Promise((resolve) => {
    const out: Exchange = { data: '', closed: false };
    const sock = net.connect(port, '127.0.0.1');
    const finish = () => {
      clearTimeout(timer);
      sock.destroy();
      resolve(out);
    };
    const timer = setTimeout(finish, 5000);
    sock.on('data', (d: Buffer) => {
      out.data += d.toString('latin1');
      if ((out.data.match(/HTTP\/1\.1 \d{3} /g) ?? []).length >= 2 && out.data.endsWith('{"status":"ok"}')) finish();
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      out.error = err.code ?? err.message;
    });
    sock.on('close', () => {
      out.closed = true;
      finish();
    });
    sock.on('connect', async () => {
      sock.write(head);
      await new Promise((r) => setTimeout(r, pauseMs));
      for (let i = 0; i < body.length && !sock.destroyed; i += 16 * 1024) {
        if (!sock.write(body.subarray(i, i + 16 * 1024))) await new Promise((r) => sock.once('drain', r));
      }
      if (!sock.destroyed) sock.write(FOLLOW_UP);
    });
  });
}

/**
 * Sends `head` and the first 256 KiB of a body announced far larger; the answer must come at once.
 * `chunked`: the head announces a chunked body, of which 2 MiB are sent (over the drain limit).
 */
function bigExchange(s: TestServer, head: string, chunked = false): Promise<Exchange> {
  const port = Number(new URL(s.url).port);
  return new Promise((resolve) => {
    const out: Exchange = { data: '', closed: false };
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(head);
      if (!chunked) return void sock.write(Buffer.alloc(256 * 1024, 0x61));
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let i = 0; i < 32; i++)
        sock.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    });
    const timer = setTimeout(() => sock.destroy(), 5000);
    sock.on('data', (d: Buffer) => (out.data += d.toString('latin1')));
    sock.on('error', (err: NodeJS.ErrnoException) => (out.error = err.code ?? err.message));
    sock.on('close', () => {
      clearTimeout(timer);
      out.closed = true;
      resolve(out);
    });
  });
}

const status = (data: string) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(data)?.[1]);
const firstHead = (data: string) => data.slice(0, data.indexOf('\r\n\r\n')).toLowerCase();

/** A readable refusal of a small body: the status, the body, then the follow-up on the same connection. */
function expectReadable(x: Exchange, code: number, message: string): void {
  expect(x.error).toBeUndefined();
  expect(status(x.data)).toBe(code);
  expect(firstHead(x.data)).not.toContain('connection: close');
  expect(x.data).toContain(`{"error":"${message}"}`);
  // The connection was kept and the next request on it answered.
  expect(x.data).toMatch(/HTTP\/1\.1 200 OK[\s\S]*\{"status":"ok"\}$/);
}

function expectRefusedAtOnce(x: Exchange, code: number, message: string): void {
  expect(status(x.data)).toBe(code);
  expect(firstHead(x.data)).toContain('connection: close');
  expect(x.data).toContain(`{"error":"${message}"}`);
  expect(x.closed).toBe(true);
}

const SMALL = Buffer.alloc(200 * 1024, 0x61);
const put = (name: string, length: number, extra = '') =>
  `PUT /upload/${name} HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;
const multipartHead = (length: number, extra: string) =>
  `POST /upload HTTP/1.1\r\nHost: files.example.org\r\nAccept: application/json\r\n` +
  `Content-Type: multipart/form-data; boundary=bnd\r\nContent-Length: ${length}\r\n${extra}\r\n`;
const multipartBody = (size: number) =>
  Buffer.concat([
    Buffer.from('--bnd\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n'),
    Buffer.alloc(size, 0x61),
    Buffer.from('\r\n--bnd--\r\n'),
  ]);

describe('without API keys', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      FILES_MAX_SIZE: String(100 * 1024),
      FILES_UPLOAD_RATE_LIMIT: '1',
      FILES_UPLOAD_RATE_WINDOW: '600',
      TRUST_PROXY: 'true',
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('origin check (a cross-origin multipart POST): 400 readable, connection kept', async () => {
    const body = multipartBody(100 * 1024);
    expectReadable(
      await exchange(s, multipartHead(body.length, 'Origin: https://evil.example\r\n'), body),
      400,
      'Bad request',
    );
  });

  it('origin check with a body over 1 MiB: 400 at once, Connection: close', async () => {
    expectRefusedAtOnce(
      await bigExchange(s, multipartHead(5 * MiB, 'Origin: https://evil.example\r\n')),
      400,
      'Bad request',
    );
  });

  it('413 by Content-Length (a body over FILES_MAX_SIZE, under 1 MiB): readable, connection kept', async () => {
    expectReadable(await exchange(s, put('big.bin', SMALL.length), SMALL), 413, 'File too large');
  });

  it('413 by Content-Length over 1 MiB: at once, Connection: close', async () => {
    expectRefusedAtOnce(await bigExchange(s, put('big.bin', 50 * MiB)), 413, 'File too large');
  });

  it(`429 (upload rate limit): readable, connection kept; a body over 1 MiB is cut there, with Connection: \
close`, async () => {
    const addr = 'X-Forwarded-For: 10.9.0.1\r\n';
    const first = await exchange(s, put('one.txt', 5, addr), Buffer.from('hello'));
    expect(status(first.data)).toBe(200);
    const x = await exchange(s, put('two.txt', 50 * 1024, addr), Buffer.alloc(50 * 1024, 0x62));
    expectReadable(x, 429, 'Too many uploads, try again later');
    expect(firstHead(x.data)).toMatch(/\r\nretry-after: \d+/);
    // Under FILES_MAX_SIZE by its declared length: a chunked body of 2 MiB, cut after 1 MiB.
    const chunkedHead = put('three.bin', 0, `${addr}Transfer-Encoding: chunked\r\n`).replace(
      'Content-Length: 0\r\n',
      '',
    );
    expectRefusedAtOnce(await bigExchange(s, chunkedHead, true), 429, 'Too many uploads, try again later');
  });

  it('a POST body of another type (no fields: 400 Empty file): readable, connection kept', async () => {
    const head =
      `POST /upload HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nX-Requested-With: t\r\n` +
      `Content-Type: application/octet-stream\r\nContent-Length: ${SMALL.length}\r\n\r\n`;
    expectReadable(await exchange(s, head, SMALL), 400, 'Empty file');
  });

  it('an unknown method with a body (PATCH /upload: 404 Not found): readable, connection kept', async () => {
    const head =
      'PATCH /upload HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n' + `Content-Length: ${SMALL.length}\r\n\r\n`;
    expectReadable(await exchange(s, head, SMALL), 404, 'Not found');
  });

  it('a chunked body: drained to its end when it stays under 1 MiB', async () => {
    const chunk = Buffer.alloc(30 * 1024, 0x63);
    const frames = Buffer.concat(
      [...Array(5)]
        .map(() => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]))
        .concat([Buffer.from('0\r\n\r\n')]),
    );
    const head = multipartHead(0, 'Origin: https://evil.example\r\n').replace(
      'Content-Length: 0',
      'Transfer-Encoding: chunked',
    );
    expectReadable(await exchange(s, head, frames), 400, 'Bad request');
  });
});

describe('with FILES_REQUIRE_API_KEY', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-refusals-'));
    fs.writeFileSync(path.join(dir, 'authfile'), 'vhvZ/PT1jeTbTAJ8JdoxddqFtebSxdVb0vwPlYO+4HM=\n');
    s = await startTestServer({ FILES_REQUIRE_API_KEY: 'true', FILES_AUTH_FILE: path.join(dir, 'authfile') });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('401 (no API key) on PUT and on a multipart POST: readable, connection kept', async () => {
    expectReadable(await exchange(s, put('k.txt', SMALL.length), SMALL), 401, 'Unauthorized');
    const body = multipartBody(64 * 1024);
    expectReadable(await exchange(s, multipartHead(body.length, 'X-Requested-With: t\r\n'), body), 401, 'Unauthorized');
  });

  it('401 with a body over 1 MiB: at once, Connection: close', async () => {
    expectRefusedAtOnce(await bigExchange(s, put('k.bin', 5 * MiB)), 401, 'Unauthorized');
  });

  it('401 to a client waiting for 100 Continue: at once, Connection: close, no body expected', async () => {
    const x = await bigExchange(s, put('k.bin', 1000, 'Expect: 100-continue\r\n'));
    expect(x.data).not.toContain('100 Continue');
    expectRefusedAtOnce(x, 401, 'Unauthorized');
  });
});
