/**
 * The reader of the events log, one per instance: it hands every event, whichever instance
 * recorded it, to its listeners once, in sequence order.
 *
 * It polls the log by exact sequence numbers, the same way on every database (FerretDB, a
 * standalone mongod, a replica set): change streams would wake it sooner on a replica set only, a
 * second path that nothing here can run, so there is none.
 *
 * An event takes its number when it is written (event-log.ts), so the log has no holes for a writer
 * to fill later: the numbers after the position are either all there up to the end, or not yet taken.
 * The only hole is one pruning made (a reader that fell further behind than the retention): the feed
 * then jumps to the next event kept and counts it (`live_events_gaps_skipped_total`), which no live
 * subscriber should ever see.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EventLog } from './event-log';
import type { LiveEvent } from './types';

/** Events read per query. */
export const READ_WINDOW = 64;
const FIRST_WINDOW = 8;
/**
 * Polling slows down to QUIET_FACTOR × the interval after QUIET_AFTER_MS without an event (400 ms
 * by default): most of an idle instance's CPU is its polls, and only the first event after a quiet
 * spell waits the longer interval; the one it finds brings the short interval back.
 */
const QUIET_AFTER_MS = 10_000;
const QUIET_FACTOR = 4;
const END_CHECK_MS = 5000;

export type FeedListener = (batch: readonly LiveEvent[]) => Promise<void>;

export interface FeedOptions {
  pollIntervalMs: number;
  log: FastifyBaseLogger;
  /**
   * Resolves once what this instance recorded so far is in the log (event-writer.ts): sync() and
   * drain() wait for it, so they read past this instance's changes answered before them.
   */
  beforeSync?: () => Promise<void>;
  /** Called each time the feed jumps over a hole (pruning made it: never while it keeps up). */
  onGapSkipped?: () => void;
  /**
   * While reads find nothing, how often the log's end is asked for (END_CHECK_MS by default): an end
   * past the position with the next number gone means pruning overtook this reader.
   */
  endCheckMs?: number;
}

export class EventFeed {
  /** The last sequence number handed to the listeners. */
  private released = 0;
  private readonly listeners = new Set<FeedListener>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private lastEventAt = Date.now();
  private endCheckedAt = Date.now();
  private pulling: Promise<void> = Promise.resolve();
  /** A read queued by sync() and not started yet: later callers share it. */
  private queuedSync: Promise<void> | undefined;
  /** No live connection on this instance: nobody would receive what is read, so nothing is. */
  private idle = true;

  constructor(
    private readonly log: EventLog,
    private readonly options: FeedOptions,
  ) {}

  /** The last sequence number handed to the listeners (a subscription's replay ends here). */
  get position(): number {
    return this.released;
  }

  /** Registers a listener; batches are awaited one after the other, so it sees them in order. */
  listen(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.released = await this.log.head();
    this.running = true;
    this.options.log.info({ position: this.released }, 'live events feed started');
    this.loop = this.run();
  }

  /**
   * This instance has live connections again: read on from the log's current end. Resolves once
   * the position is known (before the connection is acknowledged), so no later event is missed.
   */
  async want(): Promise<void> {
    if (!this.idle) return;
    const p = this.pulling.then(async () => {
      if (!this.idle) return;
      this.released = await this.log.head();
      this.idle = false;
    });
    this.pulling = p.catch(() => {});
    await p;
  }

  /** The last live connection closed: stop reading until want(). */
  rest(): void {
    this.idle = true;
  }

  /** Reads now instead of at the next tick (an event was just recorded by this instance). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * Reads the log up to its current end before resolving, so a subscription registered afterwards
   * starts after everything recorded before it (the poll may be up to an interval behind). Callers
   * that come while a read is queued share it; one that comes while a read runs gets the next one.
   */
  async sync(): Promise<void> {
    if (!this.running || this.idle) return;
    await this.options.beforeSync?.();
    if (!this.queuedSync) {
      const p = this.pulling.then(() => {
        this.queuedSync = undefined;
        return this.pull();
      });
      this.queuedSync = p;
      this.pulling = p.catch(() => {});
    }
    return this.queuedSync;
  }

  /** Reads and hands out everything recorded so far (a graceful shutdown sends it before closing). */
  async drain(): Promise<void> {
    if (!this.running) return;
    await this.options.beforeSync?.();
    await this.pullExclusive();
  }

  /** One reader at a time: the loop and drain() never hand out the same events twice. */
  private pullExclusive(): Promise<void> {
    const p = this.pulling.then(() => this.pull());
    this.pulling = p.catch(() => {});
    return p;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  private interval(): number {
    const quiet = Date.now() - this.lastEventAt > QUIET_AFTER_MS;
    return quiet ? this.options.pollIntervalMs * QUIET_FACTOR : this.options.pollIntervalMs;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      try {
        await this.pullExclusive();
      } catch (err) {
        this.options.log.warn({ err }, 'live events feed could not read the events log');
      }
      if (!this.running) break;
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.interval());
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** Reads and hands out everything that follows the position. */
  private async pull(): Promise<void> {
    if (this.idle) return;
    // Most polls find nothing: the first read asks for a few numbers, later ones for a full window.
    for (let window = FIRST_WINDOW; ; window = READ_WINDOW) {
      const found = await this.log.readRange(this.released + 1, window);
      if (found.length === 0) {
        if (!(await this.overtaken())) return;
        continue;
      }
      const next: LiveEvent[] = [];
      for (const e of found) {
        if (e.seq !== this.released + next.length + 1) break;
        next.push(e);
      }
      if (next.length === 0) {
        // Later events are kept, the next one is not: pruned before this instance read it.
        this.skipTo(found[0]!.seq - 1);
        continue;
      }
      await this.deliver(next);
      if (next.length < window && next.length === found.length) return;
    }
  }

  /**
   * Nothing follows the position. Now and then the log's end is asked for: past the position, every
   * number up to it was written, so a next number still missing after that was pruned (a reader
   * more than the retention behind, e.g. a process paused that long); the feed then goes on from the
   * first event kept after it.
   */
  private async overtaken(): Promise<boolean> {
    const now = Date.now();
    if (now - this.endCheckedAt < (this.options.endCheckMs ?? END_CHECK_MS)) return false;
    this.endCheckedAt = now;
    const end = await this.log.head();
    if (end <= this.released || (await this.log.has(this.released + 1))) return false;
    const next = await this.log.firstAfter(this.released);
    if (next === 0) return false;
    this.skipTo(next - 1);
    return true;
  }

  private skipTo(seq: number): void {
    if (seq <= this.released) return;
    this.options.log.warn(
      { from: this.released + 1, to: seq },
      'live events feed skipped sequence numbers pruned before they were read',
    );
    this.options.onGapSkipped?.();
    this.released = seq;
  }

  private async deliver(batch: LiveEvent[]): Promise<void> {
    this.released = batch[batch.length - 1]!.seq;
    this.lastEventAt = Date.now();
    for (const l of this.listeners) {
      try {
        await l(batch);
      } catch (err) {
        this.options.log.error({ err }, 'live events listener failed');
      }
    }
  }
}
