/**
 * SHA-256 of uploads, computed on worker threads instead of the event loop where the CPU hashes
 * slowly, and inline where it hashes fast (defaultHashThreads).
 *
 * Why: where the CPU has no SHA extensions the hash is the largest single cost of an upload, and
 * on the event loop it made the server's one thread the bottleneck of 1 MiB uploads while the
 * second core had room; on a worker thread (another core, as linx-server's goroutines use) uploads
 * went faster (bench/files.js; bench/README.md, Decisions). With SHA extensions the hash is cheaper
 * than the hand-off to a worker, and stays on the event loop.
 *
 * How: receive.ts hands over each batch it writes (256 KiB); the batch is copied once into a buffer
 * of its own whose memory is transferred, not copied again, to the worker. Each job stays on one
 * worker, so its batches are hashed in order. At most MAX_IN_FLIGHT bytes of a job wait for the
 * worker: past that, update() returns a promise the upload's stream waits for, so a fast client
 * cannot make the hasher buffer a large file in memory. A file that ends within its first batch is
 * hashed inline (receive.ts): a round trip to a worker costs more than hashing it.
 *
 * A worker that fails (it should not: it only hashes bytes) fails the jobs it held with a plain
 * Error (a 500 for their uploads, whose bytes are discarded) and is replaced at the next job.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/** Bytes of one job posted and not yet hashed, beyond which update() makes its caller wait. */
const MAX_IN_FLIGHT = 1024 * 1024;

/**
 * The buffers batches are copied into travel to a worker and back, and are filled again: a fresh
 * one per batch was as much new external memory as the upload itself, which drives V8's scavenges.
 * A batch is 256 KiB and at most one socket chunk more (receive.ts); larger ones get a buffer of
 * their own. At most SPARE_MAX are kept (2.5 MiB).
 */
const SPARE_BYTES = 320 * 1024;
const SPARE_MAX = 8;
const spares: ArrayBuffer[] = [];

/**
 * The worker: one hash per job id; acknowledges each batch once hashed ("a", handing its buffer
 * back), answers a digest ("d").
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
const jobs = new Map();
parentPort.on('message', (m) => {
  if (m.t === 'u') {
    let h = jobs.get(m.id);
    if (!h) jobs.set(m.id, (h = crypto.createHash('sha256')));
    h.update(new Uint8Array(m.b, 0, m.n));
    // The buffer goes back with the acknowledgement, to be filled again.
    parentPort.postMessage({ t: 'a', id: m.id, n: m.n, b: m.b }, [m.b]);
  } else if (m.t === 'd') {
    const h = jobs.get(m.id) || crypto.createHash('sha256');
    jobs.delete(m.id);
    parentPort.postMessage({ t: 'd', id: m.id, hex: h.digest('hex') });
  } else if (m.t === 'x') {
    jobs.delete(m.id);
  }
});
`;

/** One stream's SHA-256. */
export interface Sha256 {
  /**
   * Adds `bufs` (in order). The caller may reuse or write them at once: they are copied or hashed
   * before this returns. Returns a promise when the caller should wait before handing over more.
   */
  update(bufs: readonly Buffer[]): Promise<void> | undefined;
  /** The hex digest of everything added; the job ends. */
  digest(): Promise<string>;
  /** Ends the job without a digest (the upload failed). */
  abort(): void;
}

/** A hash computed on the calling thread. */
export function inlineSha256(): Sha256 {
  const hash = crypto.createHash('sha256');
  return {
    update(bufs) {
      for (const b of bufs) hash.update(b);
      return undefined;
    },
    digest: () => Promise.resolve(hash.digest('hex')),
    abort() {},
  };
}

/** What the worker posts: "a" (a batch hashed; its buffer back) or "d" (a digest). */
interface WorkerMessage {
  t: string;
  id: number;
  n?: number;
  hex?: string;
  b?: ArrayBuffer;
}

interface Job {
  inFlight: number;
  /** Resolve the callers of update() waiting for room. */
  waiting: (() => void)[];
  done?: { resolve(hex: string): void; reject(err: Error): void };
}

class HashWorker {
  readonly worker: Worker;
  readonly jobs = new Map<number, Job>();
  failed = false;

  constructor(onExit: (w: HashWorker) => void) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    // Idle workers never keep the process alive; a job in progress holds a ref (HashPool.start).
    this.worker.unref();
    this.worker.on('message', (m: WorkerMessage) => this.onMessage(m));
    const fail = (err: Error) => {
      if (this.failed) return;
      this.failed = true;
      for (const job of this.jobs.values()) {
        for (const go of job.waiting.splice(0)) go();
        job.done?.reject(err);
      }
      this.jobs.clear();
      onExit(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the upload hash worker exited (code ${code})`)));
  }

  private onMessage(m: WorkerMessage): void {
    if (m.b && m.b.byteLength === SPARE_BYTES && spares.length < SPARE_MAX) spares.push(m.b);
    const job = this.jobs.get(m.id);
    if (!job) return;
    if (m.t === 'a') {
      job.inFlight -= m.n!;
      if (job.inFlight <= MAX_IN_FLIGHT) for (const go of job.waiting.splice(0)) go();
    } else if (m.t === 'd') {
      this.jobs.delete(m.id);
      if (this.jobs.size === 0) this.worker.unref();
      job.done?.resolve(m.hex!);
    }
  }
}

/** Worker threads that hash uploads; `threads` 0 hashes every upload inline. */
export class HashPool {
  private readonly workers: (HashWorker | undefined)[];
  private nextId = 1;
  private next = 0;
  private closed = false;

  constructor(readonly threads = defaultHashThreads()) {
    this.workers = new Array<HashWorker | undefined>(threads).fill(undefined);
  }

  /** A new job, on the worker with the fewest jobs (inline when there are no threads or the pool is closed). */
  start(): Sha256 {
    if (this.threads === 0 || this.closed) return inlineSha256();
    const w = this.pick();
    const id = this.nextId++;
    const job: Job = { inFlight: 0, waiting: [] };
    if (w.jobs.size === 0) w.worker.ref();
    w.jobs.set(id, job);
    let ended = false;
    return {
      update(bufs) {
        if (ended) throw new Error('update() after the hash job ended');
        if (w.failed) return Promise.reject(new Error('the upload hash worker failed'));
        let size = 0;
        for (const b of bufs) size += b.length;
        const buffer = (size <= SPARE_BYTES && spares.pop()) || new ArrayBuffer(Math.max(size, SPARE_BYTES));
        const copy = Buffer.from(buffer, 0, size);
        let at = 0;
        for (const b of bufs) at += b.copy(copy, at);
        job.inFlight += size;
        w.worker.postMessage({ t: 'u', id, b: buffer, n: size }, [buffer]);
        if (job.inFlight <= MAX_IN_FLIGHT) return undefined;
        return new Promise<void>((resolve) => job.waiting.push(resolve));
      },
      digest() {
        ended = true;
        if (w.failed) return Promise.reject(new Error('the upload hash worker failed'));
        return new Promise<string>((resolve, reject) => {
          job.done = { resolve, reject };
          w.worker.postMessage({ t: 'd', id });
        });
      },
      abort() {
        if (ended) return;
        ended = true;
        if (!w.jobs.delete(id) || w.failed) return;
        if (w.jobs.size === 0) w.worker.unref();
        w.worker.postMessage({ t: 'x', id });
      },
    };
  }

  private pick(): HashWorker {
    let best = -1;
    for (let i = 0; i < this.workers.length; i++) {
      const j = (this.next + i) % this.workers.length;
      const w = this.workers[j];
      if (!w || w.failed) {
        this.workers[j] = new HashWorker((dead) => {
          if (this.workers[j] === dead) this.workers[j] = undefined;
        });
        best = j;
        break;
      }
      if (best < 0 || w.jobs.size < this.workers[best]!.jobs.size) best = j;
    }
    this.next = (best + 1) % this.workers.length;
    return this.workers[best]!;
  }

  /** Stops the workers once their jobs ended; later jobs are hashed inline. */
  async close(): Promise<void> {
    this.closed = true;
    const live = this.workers.filter((w): w is HashWorker => !!w && !w.failed);
    this.workers.fill(undefined);
    await Promise.all(live.map((w) => whenIdle(w).then(() => w.worker.terminate())));
  }
}

/** Resolves once `w` holds no job, or after `ms` (its jobs then fail with the worker). */
function whenIdle(w: HashWorker, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve) => {
    const check = () => (w.jobs.size === 0 || w.failed || Date.now() > until ? resolve() : setTimeout(check, 10));
    check();
  });
}

/**
 * A hash at or below this many ms of CPU per MiB is done on the event loop. With SHA extensions
 * (sha_ni, ARMv8 SHA2) handing a batch to a worker (the copy, two messages, two thread wake-ups)
 * costs about as much again as hashing it inline, while the event loop has room for it. Without
 * them the hash on the event loop made it the bottleneck, and a worker pays. The limit sits
 * between the two kinds of CPU, with room for a machine measured in a slow spell (hashMsPerMiB
 * measures this machine at start; bench/files.js measures both choices).
 */
export const INLINE_HASH_MS_PER_MIB = 1.5;

/**
 * CPU time SHA-256 takes per MiB on this machine: the best of five passes over 256 KiB, once per
 * process. The two kinds of CPU differ by several times, well beyond the noise of a busy machine.
 */
export function hashMsPerMiB(): number {
  const sample = Buffer.alloc(256 * 1024, 0x5a);
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    crypto.createHash('sha256').update(sample).digest();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best * 4;
}

/**
 * Worker threads for the hash: none where the CPU hashes fast (INLINE_HASH_MS_PER_MIB) or on a
 * single core, where a thread would only add switches; otherwise one for each core beyond the
 * event loop's, at most two (one thread hashes faster than a 2-core machine receives uploads,
 * bench/files.js).
 */
export function defaultHashThreads(msPerMiB = hashMsPerMiB()): number {
  if (msPerMiB <= INLINE_HASH_MS_PER_MIB) return 0;
  return Math.max(0, Math.min(2, os.availableParallelism() - 1));
}
