/**
 * Where an upload's first bytes are written: on the event loop's own thread while the kernel takes
 * them cheaply, on libuv's thread pool while it does not (disk.ts, SYNC_WRITE_BYTES).
 *
 * Why: a write into the page cache costs the writing thread several times more CPU on memory the
 * machine's host must back first than on memory the kernel has just freed. That is the case on a
 * fresh VM and on one that hands idle memory back to its host (a Firecracker VM with DAMON pageout
 * and virtio-balloon: writes turned slow after the first gigabytes, with no dirty-page throttling).
 * On the event loop that cost caps the server's uploads (bench/files.js, bench/README.md). On the
 * pool it runs beside the event loop, at the price of a round trip per write, which costs more
 * than the write itself only while writes are cheap.
 *
 * How: the time of each inline write of at least MEASURED_BYTES feeds a moving average of ms per
 * MiB. Above SLOW_MS_PER_MIB writes go to the pool, except one in PROBE_EVERY, which stays inline
 * to notice when writes are cheap again.
 */

/** Writes shorter than this are not timed: a syscall's fixed cost would dominate the rate. */
export const MEASURED_BYTES = 64 * 1024;
/** Above this average an inline write costs the event loop more than the pool's round trip. */
export const SLOW_MS_PER_MIB = 1;
/** While writes are slow, one in this many still goes inline, to measure them. */
export const PROBE_EVERY = 16;
/** Weight of the newest write in the moving average. */
const WEIGHT = 0.25;

const MiB = 1024 * 1024;

export class WritePlacement {
  /** Moving average of inline writes, ms per MiB; 0 before the first. */
  private msPerMiB = 0;
  private sinceProbe = 0;

  /** Whether the next write should run on the event loop's thread. */
  inline(): boolean {
    if (this.msPerMiB <= SLOW_MS_PER_MIB) return true;
    if (++this.sinceProbe < PROBE_EVERY) return false;
    this.sinceProbe = 0;
    return true;
  }

  /** Records an inline write of `bytes` that took `ms`. */
  record(bytes: number, ms: number): void {
    if (bytes < MEASURED_BYTES) return;
    const rate = ms / (bytes / MiB);
    this.msPerMiB = this.msPerMiB === 0 ? rate : this.msPerMiB + WEIGHT * (rate - this.msPerMiB);
  }

  /** The current average, ms per MiB (for the tests). */
  get averageMsPerMiB(): number {
    return this.msPerMiB;
  }

  /** Runs `write` inline, timing it; returns its result (bytes written). */
  timed(write: () => number): number {
    const t0 = process.hrtime.bigint();
    const n = write();
    this.record(n, Number(process.hrtime.bigint() - t0) / 1e6);
    return n;
  }
}
