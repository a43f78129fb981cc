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
 * after being busy, this collects: V8 then returns the old space that is not live and, when it
 * judges the allocation rate low, shrinks the young generation to its minimum.
 *
 * How, in V8's terms (each step seen in test/fixtures/idle-trim.js and scripts outside the repository):
 * - A full collection returns the old space that is not live at once. The young generation V8
 *   shrinks only in a full collection that finds the allocation rate low over the last 5 s of its
 *   records, and (so the runs show) it counts what the old generation grew since the last full
 *   collection as allocation: after a burst, the first full one always finds the rate high (the
 *   server, through bench/abuse.js: young generation 256 MB after it, whatever young collections
 *   came before). So a
 *   quiet spell runs a full collection, then a young one (a few ms; it only starts a record), and a
 *   second full one at least `RATE_WINDOW_MS` after that, when V8's window holds only quiet: that
 *   one shrinks the young generation to its minimum.
 * - At most `maxCollections` full collections per quiet spell, two by default: V8 keeps a map (an
 *   object shape) that no live object has for two full collections (--retain-maps-for-n-gc=2), and
 *   the third drops it and deoptimizes the compiled code that used it. Six full collections per
 *   spell (this module's first version) made the server recompile its request path after every
 *   quiet spell: CPU per download 0.77–0.92 ms in the first 500 after one, against 0.64 without.
 *   The young collection does not count: V8 keeps shapes through young collections.
 * - On Node 20 a full collection gives the freed pages back to the system (a moment later: V8 unmaps
 *   them on a thread of its own). On Node 22 and 24 it keeps them mapped in V8's page pool (the heap
 *   shrinks, the RSS does not), and only the last-resort collection empties that pool: so when the
 *   RSS beyond the heap's size stands well above the least seen, at the start of a quiet spell (the
 *   burst's own collections fill the pool too) or two intervals after a full collection, that one
 *   runs too, once per spell. It is several full collections that reduce memory (~0.1–0.3 s with
 *   ~80 MB live on Node 24) and drops every shape no object has, hence only then; Node 20 ignores it.
 * - Any full collection while nothing is in flight also costs the next burst the optimized code of
 *   every function made per request (closures: V8 keeps a closure's optimized code for the next one
 *   made only weakly, in the function's feedback vector, so a full collection with no such closure
 *   alive drops it; a young collection does not; no V8 flag keeps it). The request path is largely
 *   such closures (Node's HTTP and stream callbacks, ours): after one full collection the next 500
 *   uploads ran 47–98 TurboFan compiles against 21–42 without it, at 0.84–0.86× the uploads per
 *   second and +1.4–2.4 ms of CPU each (bench/README.md). Hence `minSlackBytes` is 96 MiB: an
 *   upload burst leaves 39–72 MiB of heap unused (mostly a young generation grown to 2× its
 *   minimum), of which a trim gave back ~8–10 MiB of RSS, not worth that; a burst of distinct
 *   GraphQL documents leaves hundreds (bench/abuse.js: RSS 697.5 MiB 15 s after, 348 at 30 s).
 * Never under load; a few to some tens of milliseconds of the one thread each while nothing waits
 * (a request arriving just then waits that long).
 *
 * It needs V8's `gc` function, which node exposes with the V8 flag --expose-gc (the deployed flags
 * have it: package.json, Dockerfile). The flag is V8's, passed through by node (whose CLI docs called it
 * experimental, then dropped it), so a runtime may lose it: started without it, this does nothing and
 * says so once, and bench/abuse.js's RSS after the distinct documents shows the difference.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import v8 from 'node:v8';

/** V8's gc extension: a full collection without options; with them, the kind asked for. */
type Collect = (options?: { type: 'minor' } | { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** The span over which V8 judges the allocation rate (5 s), with a margin for timers firing late. */
export const RATE_WINDOW_MS = 5_500;

export interface IdleTrimOptions {
  /** How often the event loop's utilization is looked at. */
  intervalMs: number;
  /** Utilization (0–1) of an interval at or below which the process counts as quiet. */
  quietUtilization: number;
  /** Quiet intervals in a row, after a busy one, before the collections start. */
  quietIntervals: number;
  /**
   * Heap committed beyond what is used (and, on Node 22/24, RSS pooled beyond the least seen) below
   * which nothing is worth a collection and the recompiling that follows it (see above).
   */
  minSlackBytes: number;
  /** Full collections per quiet spell at most (V8 keeps unused object shapes through two). */
  maxCollections: number;
}

export const DEFAULT_IDLE_TRIM: IdleTrimOptions = {
  intervalMs: 1_000,
  quietUtilization: 0.05,
  quietIntervals: 10,
  minSlackBytes: 96 * 1024 * 1024,
  maxCollections: 2,
};

export interface IdleTrim {
  /** Full collections run so far (tests). */
  readonly trims: number;
  /** Last-resort collections run so far (tests). */
  readonly lastResorts: number;
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

/** The RSS beyond the heap's committed size. */
function rssBeyondHeap(): number {
  return process.memoryUsage.rss() - v8.getHeapStatistics().total_heap_size;
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
  /**
   * When the round's young collection ran (V8's rate window starts there), or the last-resort one;
   * undefined before either.
   */
  let sampledAt: number | undefined;
  /**
   * Quiet intervals to wait before the next look at V8's page pool; undefined when none is due. A
   * spell starts with one (the burst's own collections may have filled the pool), and a collection
   * schedules one two intervals on (V8 finishes sweeping and unmaps on threads of its own).
   */
  let lookIn: number | undefined;
  /** Whether the spell ran the last-resort collection (once at most). */
  let triedPool = false;
  /**
   * The least RSS beyond the heap's committed size seen so far (code, native memory and so on):
   * more than `minSlackBytes` beyond it is pages V8 pooled (Node 22, 24), or native memory grown.
   */
  let gapFloor = rssBeyondHeap();
  let collections = 0;
  let trims = 0;
  let lastResorts = 0;
  const endSpell = () => {
    busySince = false;
    sampledAt = lookIn = undefined;
    triedPool = false;
    collections = 0;
  };
  /** Runs a collection, whose time the next interval's utilization does not count (it is not load). */
  const run = (kind?: Parameters<Collect>[0]) => {
    collect(kind);
    last = performance.eventLoopUtilization();
  };
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const interval = performance.eventLoopUtilization(now, last);
    last = now;
    if (interval.utilization > options.quietUtilization) {
      endSpell();
      busySince = true;
      lookIn = 0;
      quiet = 0;
      return;
    }
    quiet++;
    if (!busySince || quiet < options.quietIntervals) return;
    if (lookIn) lookIn--;
    else if (lookIn === 0) {
      lookIn = undefined;
      // Resident pages the heap does not count sit in V8's pool (Node 22, 24; Node 20 unmaps
      // them), which the last-resort collection empties. If they stay after it, they are native
      // memory, not V8's: the floor moves up to them, so it is not tried in vain again.
      const gap = rssBeyondHeap();
      if (gap - gapFloor <= options.minSlackBytes) gapFloor = Math.min(gapFloor, gap);
      else if (triedPool) gapFloor = gap;
      else {
        triedPool = true;
        lastResorts++;
        lookIn = 2;
        run({ type: 'major', execution: 'sync', flavor: 'last-resort' });
        // It collects fully several times: a full collection right after would find nothing more.
        sampledAt = performance.now();
        return;
      }
    }
    if (heapSlack() < options.minSlackBytes || collections >= options.maxCollections) {
      // Done, once the last collection's look at the pool is over.
      if (lookIn === undefined) endSpell();
      return;
    }
    // The first full collection; then a young one, and the second full one a rate window later.
    if (collections > 0 && sampledAt === undefined) {
      run({ type: 'minor' });
      sampledAt = performance.now();
      return;
    }
    if (sampledAt !== undefined && performance.now() - sampledAt < RATE_WINDOW_MS) return;
    collections++;
    trims++;
    lookIn = 2;
    sampledAt = undefined;
    run();
  }, options.intervalMs);
  timer.unref();
  return {
    get trims() {
      return trims;
    },
    get lastResorts() {
      return lastResorts;
    },
    stop: () => clearInterval(timer),
  };
}
