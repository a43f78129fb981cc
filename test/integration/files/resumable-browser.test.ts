/**
 * The web page case of resumable uploads (docs/files-api.md §4.9): headless Chromium runs
 * tus-js-client's browser bundle in a page served for the test, and uploads through a proxy that
 * cuts the connection mid-PATCH; the client resumes and the stored file has the page's SHA-256.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startTestServer, TestServer } from '../../helpers/server';
import { client, JSON_ACCEPT } from './helpers';
import { CuttingProxy, startCuttingProxy } from './cutting-proxy';

const MiB = 1024 * 1024;
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PAGE = `<!doctype html><meta charset="utf-8"><title>tus</title><script src="/tus.js"></script>
<script>
window.runUpload = async (size, chunkSize) => {
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) crypto.getRandomValues(data.subarray(i, Math.min(size, i + 65536)));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  const sha = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  const url = await new Promise((resolve, reject) => {
    const u = new tus.Upload(new Blob([data]), {
      endpoint: '/upload/resumable',
      chunkSize,
      retryDelays: [0, 100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000],
      metadata: { filename: 'browser.bin', filetype: 'application/octet-stream' },
      onError: (e) => reject(String(e)),
      onSuccess: () => resolve(u.url),
    });
    u.start();
  });
  return { url, sha };
};
</script>`;

interface PageApi {
  runUpload(size: number, chunkSize: number): Promise<{ url: string; sha: string }>;
}

const maybe = fs.existsSync(CHROMIUM) ? describe : describe.skip;

maybe('resumable upload from a web page in headless Chromium', () => {
  let s: TestServer;
  let proxy: CuttingProxy;
  let profile: string;
  beforeAll(async () => {
    s = await startTestServer({ FILES_STORAGE: 'disk' });
    const bundle = fs.readFileSync(require.resolve('tus-js-client/dist/tus.min.js'));
    proxy = await startCuttingProxy(s.url, 10 * MiB, {
      '/tus-page.html': { type: 'text/html; charset=utf-8', body: PAGE },
      '/tus.js': { type: 'text/javascript; charset=utf-8', body: bundle },
    });
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-chromium-'));
  });
  afterAll(async () => {
    await proxy?.close();
    await s?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it('is interrupted, resumes, and stores the exact bytes', async () => {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    try {
      const page = await context.newPage();
      await page.goto(`${proxy.url}/tus-page.html`);
      // Runs in the page: its runUpload (PAGE), reached through globalThis.
      const { url, sha } = await page.evaluate(
        ([size, chunk]) => (globalThis as unknown as PageApi).runUpload(size!, chunk!),
        [24 * MiB, 24 * MiB],
      );
      expect(proxy.cuts).toBeGreaterThanOrEqual(2);
      const result = (await client(s).get(new URL(url).pathname, JSON_ACCEPT)).json();
      expect(result.filename).toBe('browser.bin');
      expect(result.size).toBe(String(24 * MiB));
      expect(result.sha256sum).toBe(sha);
    } finally {
      await context.close();
    }
  }, 120_000);
});
