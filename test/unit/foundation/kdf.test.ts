/**
 * The scrypt pool (src/core/kdf.ts): the same keys as node:crypto, a bounded queue, and libuv's
 * thread pool left to file I/O while passwords and keys are hashed.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TooManyRequestsError } from '../../../src/core/errors';
import { KdfPool } from '../../../src/core/kdf';
import { hashPassword, verifyPassword } from '../../../src/discussion/auth/password';
import { hashSecret, verifySecret } from '../../../src/files/keys';
import { ensureBuilt, ROOT } from '../../helpers/dist';

const PARAMS = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

describe('KdfPool', () => {
  it('computes what crypto.scryptSync computes, for strings and bytes', async () => {
    const pool = new KdfPool({ threads: 2, maxQueued: 8 });
    try {
      const cases: [string | Buffer, string | Buffer][] = [
        ['password', 'salt'],
        [Buffer.from([0, 1, 2, 255]), crypto.randomBytes(16)],
        ['ünïcödé 🔑', Buffer.alloc(0)],
      ];
      for (const [secret, salt] of cases)
        expect(await pool.scrypt(secret, salt, 32, PARAMS)).toEqual(crypto.scryptSync(secret, salt, 32, PARAMS));
    } finally {
      await pool.close();
    }
  });

  it('runs `threads` jobs at once, queues `maxQueued`, and refuses the rest with KDF_BUSY', async () => {
    const pool = new KdfPool({ threads: 1, maxQueued: 2 });
    try {
      const jobs = Array.from({ length: 6 }, (_, i) => pool.scrypt(`secret ${i}`, 'salt', 32, PARAMS));
      const outcomes = await Promise.allSettled(jobs);
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(refused).toHaveLength(3);
      for (const o of refused) {
        const err = (o as PromiseRejectedResult).reason;
        expect(err).toBeInstanceOf(TooManyRequestsError);
        expect(err).toMatchObject({ reason: 'KDF_BUSY', retryAfter: 1 });
      }
      const done = outcomes.filter((o): o is PromiseFulfilledResult<Buffer> => o.status === 'fulfilled');
      expect(done.map((o) => o.value)).toEqual(
        [0, 1, 2].map((i) => crypto.scryptSync(`secret ${i}`, 'salt', 32, PARAMS)),
      );
      // The queue drained: the pool takes work again.
      await expect(pool.scrypt('again', 'salt', 32, PARAMS)).resolves.toHaveLength(32);
    } finally {
      await pool.close();
    }
  });
});

describe('password and key hashing use the pool, not libuv’s thread pool', () => {
  it('a file read issued behind a dozen password and key hashes completes before the first of them', async () => {
    const order: string[] = [];
    const hashes = Array.from({ length: 12 }, (_, i) =>
      (i % 2 ? hashPassword(`password ${i}`) : hashSecret(`key ${i}`)).then(() => order.push('hash')),
    );
    const read = fs.promises.readFile(__filename).then(() => order.push('read'));
    await Promise.all([...hashes, read]);
    expect(order[0]).toBe('read');
  });

  it('hashes still verify', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('wrong horse', stored)).toBe(false);
    const key = await hashSecret('a delete key');
    expect(await verifySecret('a delete key', key)).toBe(true);
    expect(await verifySecret('another', key)).toBe(false);
  });
});

describe('KdfPool and the process', () => {
  // A pool's workers must keep a process alive while a job runs (a CLI command awaiting a hash) and
  // never once it is idle (a test worker, a CLI command that is done): a process with an idle pool
  // exits by itself.
  it('keeps the process alive for its jobs, and never once they are done', () => {
    ensureBuilt();
    const script = `
      const { KdfPool } = require(${JSON.stringify(path.join(ROOT, 'dist', 'core', 'kdf.js'))});
      const pool = new KdfPool({ threads: 2, maxQueued: 8 });
      const jobs = [1, 2, 3, 4, 5].map((i) => pool.scrypt('secret' + i, 'salt', 32, { N: 1024, r: 8, p: 1 }));
      Promise.all(jobs).then((keys) => console.log('hashed', keys.length));`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.signal).toBeNull(); // not ended by the timeout: it exited by itself
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe('hashed 5');
  });
});
