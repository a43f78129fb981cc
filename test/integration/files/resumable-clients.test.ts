/**
 * Resumable uploads with real clients (docs/files-api.md §4.9): tus-js-client in Node through a
 * proxy that cuts the connection mid-PATCH, two instances continuing one upload, on both stores.
 */
import crypto from 'node:crypto';
import * as tus from 'tus-js-client';
import { startTestServer, TestServer } from '../../helpers/server';
import { BACKENDS, client, JSON_ACCEPT } from './helpers';
import { CuttingProxy, startCuttingProxy } from './cutting-proxy';

const MiB = 1024 * 1024;
const TUS = { 'tus-resumable': '1.0.0' };
const OCTETS = { ...TUS, 'content-type': 'application/offset+octet-stream' };

function upload(endpoint: string, data: Buffer, filename: string, chunkSize: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new tus.Upload(data, {
      endpoint,
      chunkSize,
      retryDelays: [0, 100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000],
      metadata: { filename },
      onError: reject,
      onSuccess: () => resolve(u.url!),
    });
    u.start();
  });
}

describe.each(BACKENDS)('resumable uploads with tus-js-client on %s', (backend) => {
  let s: TestServer;
  let proxy: CuttingProxy;
  beforeAll(async () => {
    s = await startTestServer({ FILES_STORAGE: backend });
    proxy = await startCuttingProxy(s.url, 23 * MiB);
  });
  afterAll(async () => {
    await proxy?.close();
    await s?.close();
  });

  it('uploads 64 MiB through connections cut mid-PATCH, resuming each time', async () => {
    const data = crypto.randomBytes(64 * MiB);
    const url = await upload(`${proxy.url}/upload/resumable`, data, 'big.bin', 64 * MiB);
    expect(proxy.cuts).toBeGreaterThanOrEqual(2);
    const c = client(s);
    const result = (await c.get(new URL(url).pathname, JSON_ACCEPT)).json();
    expect(result.filename).toBe('big.bin');
    expect(result.size).toBe(String(data.length));
    expect(result.sha256sum).toBe(crypto.createHash('sha256').update(data).digest('hex'));
    const dl = await c.get('/selif/big.bin');
    expect(dl.body.equals(data)).toBe(true);
  }, 180_000);
});

describe.each(BACKENDS)('two instances continue one upload on %s', (backend) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ FILES_STORAGE: backend });
    b = await startTestServer({ FILES_STORAGE: backend }, { shareWith: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('begun on one, continued on the other, one writer at a time across them', async () => {
    const ca = client(a);
    const cb = client(b);
    const data = crypto.randomBytes(3 * MiB + 17);
    const created = await ca.req('POST', '/upload/resumable', {
      headers: { ...TUS, 'upload-length': String(data.length), 'upload-metadata': `filename ${btoa('two.bin')}` },
    });
    expect(created.status).toBe(201);
    const path = new URL(created.headers.location!).pathname;
    const first = MiB + 5;
    let r = await ca.req('PATCH', path, {
      headers: { ...OCTETS, 'upload-offset': '0' },
      body: data.subarray(0, first),
    });
    expect(r.status).toBe(204);
    const h = await cb.req('HEAD', path, { headers: TUS });
    expect(h.headers['upload-offset']).toBe(String(first));

    // Concurrent PATCHes at the same offset through both instances: one writes, the others wait their turn.
    const racing = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? ca : cb).req('PATCH', path, {
          headers: { ...OCTETS, 'upload-offset': String(first) },
          body: data.subarray(first, first + MiB),
        }),
      ),
    );
    const statuses = racing.map((x) => x.status);
    expect(statuses.filter((x) => x === 204)).toHaveLength(1);
    expect(statuses.every((x) => x === 204 || x === 409 || x === 423)).toBe(true);

    r = await cb.req('PATCH', path, {
      headers: { ...OCTETS, 'upload-offset': String(first + MiB) },
      body: data.subarray(first + MiB),
    });
    expect(r.status).toBe(204);
    const result = (await ca.get(path, JSON_ACCEPT)).json();
    expect(result.sha256sum).toBe(crypto.createHash('sha256').update(data).digest('hex'));
    expect((await ca.get('/selif/two.bin')).body.equals(data)).toBe(true);
    expect((await cb.get('/selif/two.bin')).body.equals(data)).toBe(true);
  });
});
