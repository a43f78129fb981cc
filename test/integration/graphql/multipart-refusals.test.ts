/**
 * A GraphQL multipart request refused before its body is read (a bad `map`, `map` before
 * `operations`) reaches the client as its 400, never as EPIPE or a reset, while the client is
 * still writing a large body: the server reads and drops what follows the answer (a lingering
 * close, src/core/lingering-close.ts). Raw sockets, many tries, the status read every time.
 */
import net from 'node:net';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(120_000);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

const MiB = 1024 * 1024;
const UPLOAD = 'mutation($f: Upload!) { uploadFile(file: $f) { filename } }';

/** A multipart body: the given fields, then one file part of `size` bytes. */
function body(fields: [string, string][], size: number): Buffer {
  const parts = fields.map(([n, v]) => `--bnd\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`);
  return Buffer.concat([
    Buffer.from(parts.join('')),
    Buffer.from('--bnd\r\nContent-Disposition: form-data; name="0"; filename="a.bin"\r\n\r\n'),
    Buffer.alloc(size, 0x61),
    Buffer.from('\r\n--bnd--\r\n'),
  ]);
}

interface Exchange {
  data: string;
  error?: string;
}

/** Writes the head and the whole body without pausing, whatever the server answers meanwhile. */
function send(payload: Buffer): Promise<Exchange> {
  const port = Number(new URL(s.url).port);
  const head =
    `POST /graphql HTTP/1.1\r\nHost: x\r\nApollo-Require-Preflight: true\r\n` +
    `Content-Type: multipart/form-data; boundary=bnd\r\nContent-Length: ${payload.length}\r\n\r\n`;
  return new Promise((resolve) => {
    const out: Exchange = { data: '' };
    const sock = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => sock.destroy(), 20_000);
    sock.on('data', (d: Buffer) => (out.data += d.toString('latin1')));
    sock.on('error', (err: NodeJS.ErrnoException) => (out.error ??= err.code ?? err.message));
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    sock.on('connect', async () => {
      sock.write(head);
      for (let i = 0; i < payload.length && !sock.destroyed; i += 64 * 1024) {
        if (!sock.write(payload.subarray(i, i + 64 * 1024))) await new Promise((r) => sock.once('drain', r));
      }
      if (!sock.destroyed) sock.end();
    });
  });
}

const status = (data: string) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(data)?.[1]);

const operations = JSON.stringify({ query: UPLOAD, variables: { f: null } });
const map = JSON.stringify({ 0: ['variables.f'] });
it.each([
  ['map before operations', [['map', map] as [string, string], ['operations', operations] as [string, string]]],
  [
    'a map that is not JSON',
    [['operations', operations] as [string, string], ['map', '{not json'] as [string, string]],
  ],
  [
    'a map pointing outside the variables',
    [['operations', operations] as [string, string], ['map', JSON.stringify({ 0: ['query'] })] as [string, string]],
  ],
])('%s: the 400 reaches a client still writing 8 MiB, every time', async (_, fields) => {
  const payload = body(fields, 8 * MiB);
  for (let i = 0; i < 15; i++) {
    const x = await send(payload);
    expect([i, x.error, status(x.data)]).toEqual([i, undefined, 400]);
    expect(x.data).toMatch(/connection: close/i);
    expect(x.data).toContain('"code":"BAD_REQUEST"');
  }
  // The server still answers.
  expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
});
