/**
 * A stalled disk holds up only the requests that wait for it (issue 41): one upload's write hangs 5 s
 * (a fault-injection double at the disk store's file-system boundary, src/storage/disk-io.ts) while
 * /healthz, the REST API, file information and downloads of other files keep answering (their response
 * heads) within 100 ms: the median of each kind's rounds, and none as late as 1 s. When a write ran on
 * the event loop's own thread, the hang froze every request for the 5 s.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { DiskIoDouble } from '../../helpers/disk-io-double';
import { startTestServer, TestServer } from '../../helpers/server';
import { client, JSON_ACCEPT } from './helpers';

const HANG_MS = 5000;
/** What each kind of request's typical answer must take (the median of its rounds)… */
const BOUND_MS = 100;
/**
 * …and what none may take: far below the hang, which an answer that waited for the stalled write would
 * show; above the typical bound, for a scheduling hiccup of a machine shared with other jobs.
 */
const NEVER_MS = 1000;

let s: TestServer;
const io = new DiskIoDouble();
const small = crypto.randomBytes(1000);
/** Above the object cache's largest object and the small-read size: an ObjectReader (sendfile) download. */
const large = crypto.randomBytes(3 * 1024 * 1024 + 5);

beforeAll(async () => {
  s = await startTestServer({ FILES_STORAGE: 'disk' }, { diskIo: io });
  const c = client(s);
  expect((await c.put('/upload/small.bin', small, JSON_ACCEPT)).status).toBe(200);
  expect((await c.put('/upload/large.bin', large, JSON_ACCEPT)).status).toBe(200);
});
afterAll(async () => {
  await s?.close();
});

/** A GET whose answer is timed to its head (what a client waits for before the bytes flow), read to its end. */
function timedGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ ms: number; status: number; body: Buffer }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, s.url), { headers, agent: false }, (res) => {
      const ms = performance.now() - t0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ ms, status: res.statusCode!, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

it('while one upload’s write hangs 5 s, /healthz, REST reads and other downloads answer within 100 ms', async () => {
  const c = client(s);
  const probes: Record<string, () => Promise<number>> = {
    healthz: async () => {
      const r = await timedGet('/healthz');
      expect(r.status).toBe(200);
      return r.ms;
    },
    'REST topics': async () => {
      const r = await timedGet('/api/beta/topics');
      expect(r.status).toBe(200);
      return r.ms;
    },
    'file information': async () => {
      const r = await timedGet('/small.bin', JSON_ACCEPT);
      expect(r.status).toBe(200);
      return r.ms;
    },
    'small download': async () => {
      const r = await timedGet('/selif/small.bin');
      expect(r.body.equals(small)).toBe(true);
      return r.ms;
    },
    'large download': async () => {
      const r = await timedGet('/selif/large.bin');
      expect(r.body.equals(large)).toBe(true);
      return r.ms;
    },
  };
  const times: Record<string, number[]> = {};
  const note = (name: string, ms: number) => (times[name] ??= []).push(ms);
  // Rounds of every probe, one at a time and then all at once, from before the upload begins until
  // 1.5 s into its hang: probes are in flight when the write hangs (a write that blocked the thread
  // would hold them for its 5 s).
  let stop = false;
  const probing = (async () => {
    for (let round = 0; round < 8 || !stop; round++) {
      for (const [name, probe] of Object.entries(probes)) note(name, await probe());
      const together = await Promise.all(Object.values(probes).map((p) => p()));
      note('all at once', Math.max(...together));
    }
  })();
  const held = io.hangNextUpload(HANG_MS);
  const body = crypto.randomBytes(1024 * 1024);
  const t0 = performance.now();
  const upload = c.put('/upload/stalled.bin', body, JSON_ACCEPT);
  await held;
  await new Promise((r) => setTimeout(r, 1500));
  stop = true;
  await probing;
  for (const [name, all] of Object.entries(times)) {
    const sorted = [...all].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const slowest = sorted[sorted.length - 1]!;
    expect({ name, median: median <= BOUND_MS, slowest: slowest < NEVER_MS, all }).toEqual({
      name,
      median: true,
      slowest: true,
      all,
    });
  }

  // Still inside the hang: the probes did not just wait for it to end.
  expect(performance.now() - t0).toBeLessThan(HANG_MS);

  const res = await upload;
  expect(res.status).toBe(200);
  expect(performance.now() - t0).toBeGreaterThanOrEqual(HANG_MS);
  expect((await c.get('/selif/stalled.bin')).body.equals(body)).toBe(true);
}, 30_000);
