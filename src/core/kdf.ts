/**
 * scrypt on a small pool of worker threads of its own, with a bounded queue: every password and
 * client-chosen key hash of the process (login, registration, password changes, files' delete and
 * access keys, the linx auth file) goes through here.
 *
 * Why: node:crypto's async scrypt runs on libuv's thread pool, which also runs every file read,
 * write and fsync (src/threadpool.ts sizes it at 32). A flood of wrong keys (each a deliberately
 * costly scrypt) filled that pool, and other clients' downloads waited behind it (bench/kdf-flood.js measures it).
 * Here at most `threads` scrypts run at once, on threads libuv does not use, and at most
 * `maxQueued` wait; beyond that the caller is refused (TooManyRequestsError KDF_BUSY, Retry-After
 * 1) instead of the queue growing: the rate limits in front (login, registration, key checks) keep
 * legitimate load far below it. bench/kdf-flood.js measures a download during a wrong-key flood.
 *
 * A worker runs one job at a time (scryptSync); one that dies fails its job with a plain Error
 * and is replaced at the next job. Workers are unref'd: an idle pool never keeps a process alive.
 */
import { Worker } from 'node:worker_threads';
import { TooManyRequestsError } from './errors';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  maxmem?: number;
}

export interface KdfSettings {
  /** Worker threads running scrypt at once. */
  threads: number;
  /** Jobs allowed to wait for a worker; more are refused. */
  maxQueued: number;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
parentPort.on('message', (job) => {
  try {
    const key = crypto.scryptSync(job.secret, job.salt, job.keyLength, job.params);
    parentPort.postMessage({ id: job.id, key });
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
  }
});
`;

interface Job {
  id: number;
  secret: string | Uint8Array;
  salt: string | Uint8Array;
  keyLength: number;
  params: ScryptParams;
  resolve(key: Buffer): void;
  reject(err: Error): void;
}

interface Reply {
  id: number;
  key?: Uint8Array;
  error?: string;
}

class KdfWorker {
  readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  job: Job | undefined;
  dead = false;

  constructor(onIdle: (w: KdfWorker) => void) {
    this.worker.on('message', (m: Reply) => {
      const job = this.job;
      this.job = undefined;
      this.worker.unref();
      if (job && job.id === m.id) {
        if (m.key) job.resolve(Buffer.from(m.key.buffer, m.key.byteOffset, m.key.byteLength));
        else job.reject(new Error(`scrypt failed: ${m.error}`));
      }
      onIdle(this);
    });
    const fail = (err: Error) => {
      if (this.dead) return;
      this.dead = true;
      this.job?.reject(err);
      this.job = undefined;
      onIdle(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`scrypt worker exited (${code})`)));
    // After the listeners: adding a 'message' listener refs the worker again, and an idle pool
    // must never keep a process alive (a test run's workers, a CLI command).
    this.worker.unref();
  }

  run(job: Job): void {
    this.job = job;
    // A job in flight keeps the process alive until it answers, as node:crypto's scrypt does.
    this.worker.ref();
    this.worker.postMessage({
      id: job.id,
      secret: job.secret,
      salt: job.salt,
      keyLength: job.keyLength,
      params: job.params,
    });
  }
}

export class KdfPool {
  private readonly workers: KdfWorker[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private retired = false;

  constructor(readonly settings: KdfSettings) {}

  /** Jobs waiting for a worker (not counting those running). */
  get queued(): number {
    return this.queue.length;
  }

  /** scrypt(secret, salt) of `keyLength` bytes, on a worker; TooManyRequestsError when the queue is full. */
  scrypt(
    secret: string | Uint8Array,
    salt: string | Uint8Array,
    keyLength: number,
    params: ScryptParams,
  ): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const job: Job = { id: ++this.nextId, secret, salt, keyLength, params, resolve, reject };
      const idle = this.idleWorker();
      if (idle) return idle.run(job);
      if (this.queue.length >= this.settings.maxQueued)
        return reject(new TooManyRequestsError('The server is busy, try again shortly', 1, 'KDF_BUSY'));
      this.queue.push(job);
    });
  }

  private idleWorker(): KdfWorker | undefined {
    const live = this.workers.filter((w) => !w.dead);
    this.workers.splice(0, this.workers.length, ...live);
    const idle = live.find((w) => !w.job);
    if (idle) return idle;
    if (live.length < Math.max(1, this.settings.threads)) {
      const w = new KdfWorker((done) => this.onIdle(done));
      this.workers.push(w);
      return w;
    }
    return undefined;
  }

  private onIdle(w: KdfWorker): void {
    const next = this.queue.shift();
    if (!next) {
      if (this.retired && !w.dead) void w.worker.terminate();
      return;
    }
    const target = w.dead ? this.idleWorker() : w;
    if (target) target.run(next);
    else this.queue.unshift(next);
  }

  /** Lets the jobs queued and running finish, then ends the workers (configureKdf's replaced pool). */
  retire(): void {
    this.retired = true;
    for (const w of this.workers) if (!w.job && this.queue.length === 0) void w.worker.terminate();
  }

  /** Ends the workers; queued and running jobs fail. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error('scrypt pool closed'));
    await Promise.all(this.workers.splice(0).map((w) => w.worker.terminate()));
  }
}

/** The process's pool: its settings come from the configuration (configureKdf), at start-up. */
let pool = new KdfPool({ threads: 2, maxQueued: 128 });

/** Replaces the process's pool with one of these settings (the old one's jobs finish first). */
export function configureKdf(settings: KdfSettings): void {
  if (settings.threads === pool.settings.threads && settings.maxQueued === pool.settings.maxQueued) return;
  pool.retire();
  pool = new KdfPool(settings);
}

/** scrypt on the process's pool (see KdfPool.scrypt). */
export function scrypt(
  secret: string | Uint8Array,
  salt: string | Uint8Array,
  keyLength: number,
  params: ScryptParams,
): Promise<Buffer> {
  return pool.scrypt(secret, salt, keyLength, params);
}
