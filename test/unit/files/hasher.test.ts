/**
 * Upload hashing on worker threads (src/files/hasher.ts): the same digests as node:crypto for any
 * split of the bytes, many jobs at once, backpressure, aborts, a worker that dies, and close().
 */
import crypto from 'node:crypto';
import os from 'node:os';
import {
  defaultHashThreads,
  HashPool,
  hashMsPerMiB,
  INLINE_HASH_MS_PER_MIB,
  inlineSha256,
} from '../../../src/files/hasher';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** `data` cut at random points into batches of up to `max` bytes, each batch of a few buffers. */
function batches(data: Buffer, max: number, seed: number): Buffer[][] {
  let x = seed;
  const rand = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  const out: Buffer[][] = [];
  for (let at = 0; at < data.length;) {
    const size = Math.min(data.length - at, 1 + rand(max));
    const batch: Buffer[] = [];
    for (let end = at + size; at < end;) {
      const part = Math.min(end - at, 1 + rand(64 * 1024));
      batch.push(data.subarray(at, at + part));
      at += part;
    }
    out.push(batch);
  }
  return out;
}

describe('HashPool', () => {
  const pool = new HashPool(2);
  afterAll(() => pool.close());

  it('gives node:crypto’s digest for any split of the bytes, with many jobs at once', async () => {
    const inputs = Array.from({ length: 12 }, (_, i) => crypto.randomBytes(i * 97_531 + (i % 3)));
    const digests = await Promise.all(
      inputs.map(async (data, i) => {
        const job = pool.start();
        for (const batch of batches(data, 300 * 1024, i + 1)) await job.update(batch);
        return job.digest();
      }),
    );
    expect(digests).toEqual(inputs.map(sha));
  });

  it('gives the same digests with batches above and below the size of the buffers it reuses (320 KiB)', async () => {
    const inputs = Array.from({ length: 6 }, (_, i) => crypto.randomBytes(2 * 1024 * 1024 + i * 65_537));
    for (let round = 0; round < 2; round++) {
      const digests = await Promise.all(
        inputs.map(async (data, i) => {
          const job = pool.start();
          for (const batch of batches(data, 700 * 1024, 100 * round + i + 1)) await job.update(batch);
          return job.digest();
        }),
      );
      expect(digests).toEqual(inputs.map(sha));
    }
  });

  it('a job with no bytes digests the empty string', async () => {
    await expect(pool.start().digest()).resolves.toBe(sha(Buffer.alloc(0)));
  });

  it('copies what it is given: the caller may overwrite its buffers at once', async () => {
    const buf = crypto.randomBytes(200_000);
    const want = sha(buf);
    const job = pool.start();
    await job.update([buf]);
    buf.fill(0);
    await expect(job.digest()).resolves.toBe(want);
  });

  it('makes the caller wait once more than 1 MiB waits for the worker, and lets it go on after', async () => {
    const job = pool.start();
    const chunk = crypto.randomBytes(256 * 1024);
    const waits: (Promise<void> | undefined)[] = [];
    for (let i = 0; i < 8; i++) waits.push(job.update([chunk]));
    expect(waits.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    expect(waits[4]).toBeInstanceOf(Promise);
    await Promise.all(waits);
    await expect(job.digest()).resolves.toBe(sha(Buffer.concat(Array(8).fill(chunk))));
  });

  it('an aborted job leaves the others whole, and refuses more bytes', async () => {
    const a = pool.start();
    const b = pool.start();
    const data = crypto.randomBytes(500_000);
    await a.update([data]);
    await b.update([data]);
    a.abort();
    expect(() => a.update([data])).toThrow(/ended/);
    await expect(b.digest()).resolves.toBe(sha(data));
  });

  it('a worker that dies fails the jobs it held; the next job gets a new worker', async () => {
    const own = new HashPool(1);
    try {
      const job = own.start();
      await job.update([crypto.randomBytes(100_000)]);
      const workers = (own as unknown as { workers: { worker: { terminate(): Promise<number> } }[] }).workers;
      await workers[0]!.worker.terminate();
      await expect(job.digest()).rejects.toThrow(/worker/);
      const next = own.start();
      const data = crypto.randomBytes(300_000);
      await next.update([data]);
      await expect(next.digest()).resolves.toBe(sha(data));
    } finally {
      await own.close();
    }
  });

  it('after close(), jobs are hashed inline', async () => {
    const own = new HashPool(1);
    await own.close();
    const data = crypto.randomBytes(300_000);
    const job = own.start();
    expect(job.update([data])).toBeUndefined();
    await expect(job.digest()).resolves.toBe(sha(data));
  });

  it('with no threads, every job is inline', async () => {
    const none = new HashPool(0);
    const job = none.start();
    const data = crypto.randomBytes(1000);
    job.update([data]);
    await expect(job.digest()).resolves.toBe(sha(data));
    expect(inlineSha256().update([data])).toBeUndefined();
  });
});

describe('defaultHashThreads', () => {
  it('hashes inline where SHA-256 is fast, on workers (one per spare core, at most two) where it is slow', () => {
    const spare = Math.max(0, Math.min(2, os.availableParallelism() - 1));
    expect(defaultHashThreads(0.6)).toBe(0);
    expect(defaultHashThreads(INLINE_HASH_MS_PER_MIB)).toBe(0);
    expect(defaultHashThreads(2.7)).toBe(spare);
  });

  it('measures this machine’s hash speed as a plausible time per MiB', () => {
    const ms = hashMsPerMiB();
    // Any CPU Node runs on hashes 1 MiB in well under a second, and no faster than ~0.1 ms (10 GB/s).
    expect(ms).toBeGreaterThan(0.1);
    expect(ms).toBeLessThan(1000);
  });
});
