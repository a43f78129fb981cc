/**
 * Graceful shutdown under load, on the real process: SIGTERM while uploads (fast, slow, and
 * slower than the grace period), reads and GraphQL requests are in flight. In-flight requests
 * complete or are refused cleanly (503 or a refused connection, never a 5xx other than that); the
 * process exits 0 within the grace period; after a restart every upload is either complete (its
 * exact bytes) or absent — never partial.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { baseEnv, ServerProcess, startServerProcess } from '../../helpers/child';
import { ensureBuilt } from '../../helpers/dist';
import { TEST_JWT_SECRET } from '../../helpers/server';

jest.setTimeout(180_000);

const GRACE_S = 4;

let dataDir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  ensureBuilt();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-shutdown-'));
  const base = process.env.MONGODB_URI!;
  env = baseEnv({
    DATA_DIR: dataDir,
    MONGODB_URI: `${base.replace(/\/$/, '')}/agora_shutdown_${crypto.randomBytes(4).toString('hex')}`,
    JWT_SECRET: TEST_JWT_SECRET,
    DEMO_SEED: 'false',
    SHUTDOWN_TIMEOUT: String(GRACE_S),
    LOG_LEVEL: 'error',
  });
});
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
}

/** A PUT whose body arrives in `chunks` pieces `intervalMs` apart. */
function trickleUpload(
  url: string,
  name: string,
  content: Buffer,
  chunks: number,
  intervalMs: number,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/upload/${name}`,
      { method: 'PUT', headers: { 'content-length': content.length, accept: 'application/json' }, agent: false },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode, body }));
        res.on('error', (e) => resolve({ error: e.message }));
      },
    );
    req.on('error', (e) => resolve({ error: e.message }));
    const size = Math.ceil(content.length / chunks);
    let i = 0;
    const tick = setInterval(() => {
      if (req.destroyed) return clearInterval(tick);
      const part = content.subarray(i * size, (i + 1) * size);
      i++;
      if (i >= chunks) {
        clearInterval(tick);
        req.end(part);
      } else req.write(part);
    }, intervalMs);
  });
}

/** Requests one after another until the server stops answering; every outcome is kept. */
async function keepAsking(
  url: string,
  kind: 'rest' | 'graphql' | 'small-upload',
  until: () => boolean,
  out: Outcome[],
): Promise<void> {
  let n = 0;
  while (!until()) {
    try {
      const r =
        kind === 'rest'
          ? await fetch(`${url}/api/beta/topics?limit=5`)
          : kind === 'graphql'
            ? await fetch(`${url}/graphql`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '{"query":"{ topics(first: 5) { edges { node { id } } } }"}',
              })
            : await fetch(`${url}/upload/small${n++}.txt`, { method: 'PUT', body: `small ${n}` });
      out.push({ status: r.status, body: await r.text() });
    } catch (e) {
      out.push({ error: (e as Error).message });
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('SIGTERM under load', () => {
  let server: ServerProcess;

  it(`lets in-flight requests finish or refuses them cleanly, exits within the grace period, leaves no partial \
file`, async () => {
    server = await startServerProcess(env);
    const url = server.url;
    const content = (i: number, size: number) =>
      crypto
        .createHash('sha256')
        .update(String(i))
        .digest()
        .toString('hex')
        .repeat(Math.ceil(size / 64))
        .slice(0, size);

    // Uploads that finish within the grace period, and two that never could.
    const quick = Array.from({ length: 6 }, (_, i) => ({
      name: `quick${i}.txt`,
      data: Buffer.from(content(i, 256 * 1024)),
    }));
    const slow = Array.from({ length: 2 }, (_, i) => ({
      name: `slow${i}.txt`,
      data: Buffer.from(content(100 + i, 64 * 1024)),
    }));
    const quickResults = quick.map((u) => trickleUpload(url, u.name, u.data, 8, 150));
    const slowResults = slow.map((u) => trickleUpload(url, u.name, u.data, 64, 250));

    let exited = false;
    void server.exited.then(() => (exited = true));
    const background: Outcome[] = [];
    const loops = [
      keepAsking(url, 'rest', () => exited, background),
      keepAsking(url, 'graphql', () => exited, background),
      keepAsking(url, 'small-upload', () => exited, background),
    ];

    await new Promise((r) => setTimeout(r, 400));
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const code = await server.exited;
    const tookMs = Date.now() - signalledAt;
    await Promise.all(loops);

    if (process.env.SHUTDOWN_DEBUG)
      console.log(
        tookMs,
        JSON.stringify(await Promise.all(slowResults)),
        JSON.stringify(
          background
            .map((b) => b.status ?? b.error)
            .reduce((m: Record<string, number>, k) => ((m[String(k)] = (m[String(k)] ?? 0) + 1), m), {}),
        ),
      );
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan((GRACE_S + 3) * 1000);

    // Uploads in flight when the signal came and finishing within the grace period completed.
    for (const [i, r] of (await Promise.all(quickResults)).entries()) {
      expect([quick[i]!.name, r.status]).toEqual([quick[i]!.name, 200]);
      expect(JSON.parse(r.body!).sha256sum).toBe(crypto.createHash('sha256').update(quick[i]!.data).digest('hex'));
    }
    // The ones still sending at the end of the grace period were cut off.
    for (const r of await Promise.all(slowResults)) expect(r.status === undefined || r.status === 503).toBe(true);
    // Everything else got an answer or a refused connection; never a 5xx other than 503.
    expect(background.length).toBeGreaterThan(3);
    for (const o of background) {
      if (o.status !== undefined) expect(o.status === 200 || o.status === 503).toBe(true);
    }

    // After a restart: every upload is complete or absent.
    const again = await startServerProcess(env);
    try {
      for (const u of quick) {
        const r = await fetch(`${again.url}/selif/${u.name}`);
        expect(r.status).toBe(200);
        expect(Buffer.from(await r.arrayBuffer()).equals(u.data)).toBe(true);
      }
      for (const u of slow) {
        const r = await fetch(`${again.url}/${u.name}`, { headers: { accept: 'application/json' } });
        expect(r.status).toBe(404);
      }
      for (const o of background.filter((b) => b.status === 200 && b.body?.startsWith('http'))) {
        const name = o.body!.trim().split('/').pop()!;
        const r = await fetch(`${again.url}/selif/${name}`);
        expect(r.status).toBe(200);
        expect(await r.text()).toMatch(/^small \d+$/);
      }
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  });
});
