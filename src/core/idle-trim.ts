/**
 * Gives the memory of a burst back once the process has gone quiet.
 *
 * Why: V8 sizes its young generation to the load (up to twice --max-semi-space-size) and lets the old
 * space grow past what is live, and keeps both while the process is idle: an idle process allocates
 * too little to trigger the collections that would shrink them. With the 128 MB semi-spaces the
 * server runs fastest with, a burst (bench/abuse.js's 10,000 distinct documents) left ~+450 MiB of
 * RSS for as long as the server stayed idle; semi-spaces capped at 32 MB bounded that, but cost ~9 %
 * of the requests per second of bench/load.js (bench/README.md, decisions). So the server runs with
 * the large young generation under load, and when the event loop has been nearly idle for a while
 * after being busy, this runs a full collection (and the last-resort kind: see below): V8 then returns
 * the old space that is not live and, once it judges the allocation rate low, shrinks the young
 * generation to its minimum. It judges the
 * rate over the last few seconds of its own records, so right after a burst it still sees the burst
 * and keeps the young generation (until ~10 s after it on Node 20): the collection is tried again each
 * quiet interval while the heap holds more than `minSlackBytes` beyond what is used, at most
 * `maxAttempts` times per quiet spell. Never under load; a few to some tens of milliseconds of the
 * one thread each while nothing waits (a request arriving just then waits that long).
 *
 * It needs V8's `gc` function, which node exposes with the V8 flag --expose-gc (the deployed flags
 * have it: package.json, Dockerfile). The flag is V8's, passed through by node (whose CLI docs called it
 * experimental, then dropped it), so a runtime may lose it: started without it, this does nothing and
 * says so once, and bench/abuse.js's RSS after the distinct documents shows the difference.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';

/** V8's gc extension: a full collection without options; with them, the kind asked for. */
type Collect = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface IdleTrimOptions {
  /** How often the event loop's utilization is looked at. */
  intervalMs: number;
  /** Utilization (0–1) of an interval at or below which the process counts as quiet. */
  quietUtilization: number;
  /** Quiet intervals in a row, after a busy one, before the collections run. */
  quietIntervals: number;
  /** Heap committed beyond what is used, below which there is nothing worth collecting for. */
  minSlackBytes: number;
  /** Collections tried per quiet spell at most. */
  maxAttempts: number;
}

export const DEFAULT_IDLE_TRIM: IdleTrimOptions = {
  intervalMs: 5_000,
  quietUtilization: 0.05,
  quietIntervals: 2,
  minSlackBytes: 32 * 1024 * 1024,
  maxAttempts: 6,
};

export interface IdleTrim {
  /** Collections run so far (tests). */
  readonly trims: number;
  stop(): void;
}

/** V8's collector when node exposes it (--expose-gc). */
function exposedCollector(): Collect | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as Collect) : undefined;
}

/** The heap V8 holds beyond what is in use, young and old generations together. */
function heapSlack(): number {
  const h = v8.getHeapStatistics();
  return h.total_heap_size - h.used_heap_size;
}

/**
 * Starts watching the event loop; undefined (and `onUnavailable` told) when `gc` is not exposed.
 * The timer never keeps the process alive.
 */
export function startIdleTrim(
  options: IdleTrimOptions = DEFAULT_IDLE_TRIM,
  onUnavailable: () => void = () => {},
): IdleTrim | undefined {
  const collect = exposedCollector();
  if (!collect) {
    onUnavailable();
    return undefined;
  }
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  /** Whether the process was busy since the quiet spell's collections ended (nothing to give back otherwise). */
  let busySince = false;
  let quiet = 0;
  let attempts = 0;
  let trims = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const interval = performance.eventLoopUtilization(now, last);
    last = now;
    if (interval.utilization > options.quietUtilization) {
      busySince = true;
      quiet = 0;
      attempts = 0;
      return;
    }
    quiet++;
    if (!busySince || quiet < options.quietIntervals) return;
    if (heapSlack() < options.minSlackBytes || attempts >= options.maxAttempts) {
      busySince = false;
      return;
    }
    attempts++;
    trims++;
    const heapBefore = v8.getHeapStatistics().total_heap_size;
    const rssBefore = process.memoryUsage.rss();
    collect();
    // The runtimes differ (test/fixtures/idle-trim.js, on each): on Node 20 a full collection gives
    // the freed pages back to the system; on Node 22 and 24 it keeps them mapped in V8's page pool
    // (the heap shrinks, the RSS does not), and only the last-resort collection, which also empties
    // that pool, returns them. It takes several full collections (~0.1–0.3 s with ~80 MB live on
    // Node 24), so it runs only when the heap gave back well more than the RSS did; Node 20 ignores it.
    const heapFreed = heapBefore - v8.getHeapStatistics().total_heap_size;
    const rssFreed = rssBefore - process.memoryUsage.rss();
    if (heapFreed - rssFreed > options.minSlackBytes) {
      collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    }
  }, options.intervalMs);
  timer.unref();
  return {
    get trims() {
      return trims;
    },
    stop: () => clearInterval(timer),
  };
}
