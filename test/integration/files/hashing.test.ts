/**
 * The SHA-256 of uploads, hashed inline for a file within one 256 KiB batch and on worker threads
 * beyond it (src/files/hasher.ts): exact at every size around the batch edge, for raw and chunked
 * bodies and multipart forms, on both backends, also after an upload cut off in the middle.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import type { TestServer } from '../../helpers/server';
import { BACKENDS, client, JSON_ACCEPT, startFor } from './helpers';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const BATCH = 256 * 1024;

describe.each(BACKENDS)('upload digests on %s', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor(backend);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('raw bodies of every size around the batch edge', async () => {
    for (const size of [1, BATCH - 1, BATCH, BATCH + 1, 2 * BATCH + 5, 3 * 1024 * 1024 + 17]) {
      const data = crypto.randomBytes(size);
      const res = await client(s).put(`/upload/s${size}.bin`, data, JSON_ACCEPT);
      expect(res.status).toBe(200);
      expect(res.json().sha256sum).toBe(sha(data));
      const info = await client(s).get(`/s${size}.bin`, JSON_ACCEPT);
      expect(info.json().sha256sum).toBe(sha(data));
    }
  });

  it('a chunked body of uneven pieces and a multipart form', async () => {
    const data = crypto.randomBytes(1_234_567);
    const pieces: Buffer[] = [];
    for (let at = 0, n = 1; at < data.length; at += n, n = (n * 7 + 13) % 200_000)
      pieces.push(data.subarray(at, at + n));
    const chunked = await client(s).put('/upload/chunked.bin', Readable.from(pieces), {
      ...JSON_ACCEPT,
      'transfer-encoding': 'chunked',
    });
    expect(chunked.json().sha256sum).toBe(sha(data));
    const boundary = 'b0undary';
    const form = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="form.bin"\r\n\r\n`),
      data,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const posted = await client(s).post('/upload/', form, {
      ...JSON_ACCEPT,
      // A form post from a script: the cross-site check wants a custom header (docs/files-api.md §4).
      'x-requested-with': 'XMLHttpRequest',
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    expect(posted.status).toBe(200);
    expect(posted.json().sha256sum).toBe(sha(data));
  });

  it('an upload cut off in the middle leaves the hashing of the next ones exact', async () => {
    const { port } = new URL(s.url);
    await new Promise<void>((resolve) => {
      const req = http.request({ port, host: '127.0.0.1', method: 'PUT', path: '/upload/cut.bin' });
      req.setHeader('content-length', String(4 * 1024 * 1024));
      req.on('error', () => resolve());
      req.write(crypto.randomBytes(2 * 1024 * 1024), () => {
        req.destroy();
        resolve();
      });
    });
    const uploads = Array.from({ length: 6 }, (_, i) => crypto.randomBytes(600_000 + i));
    const answers = await Promise.all(uploads.map((d, i) => client(s).put(`/upload/after${i}.bin`, d, JSON_ACCEPT)));
    expect(answers.map((a) => a.json().sha256sum)).toEqual(uploads.map(sha));
  });
});
