/**
 * The reader of the events log, one per instance: it hands every event, whichever instance
 * recorded it, to its listeners once, in sequence order.
 *
 * How it learns of new events depends on what the database reports (EventLog.hasChangeStreams),
 * never on configuration: on a replica set a change stream on the events collection wakes it as
 * soon as one is inserted; elsewhere (FerretDB, a standalone mongod) it polls. Either way the
 * events themselves are read by sequence number, so one path orders and de-duplicates them.
 *
 * Numbers are handed out before the insert, so a later number can be visible before an earlier
 * one (two instances writing at once). The feed stops at such a gap and waits for it to fill;
 * a number whose insert never happened (a writer crashed between the two steps) is skipped
 * after GAP_WAIT_MS.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EventLog } from './event-log';
import type { LiveEvent } from './types';

/** Events read per query. */
export const READ_WINDOW = 64;
const FIRST_WINDOW = 8;
/** How long a missing sequence number holds back the ones after it. */
const GAP_WAIT_MS = 2000;
/** With change streams the poll is only a safety net. */
const CHANGE_STREAM_POLL_MS = 1000;
/**
 * Polling slows down to QUIET_FACTOR × the interval after QUIET_AFTER_MS without an event (400 ms
 * by default): most of an idle instance's CPU is its polls, and only the first event after a quiet
 * spell waits the longer interval; the one it finds brings the short interval back.
 */
const QUIET_AFTER_MS = 10_000;
const QUIET_FACTOR = 4;

export type FeedListener = (batch: readonly LiveEvent[]) => Promise<void>;
export type FeedMode = 'change-stream' | 'poll';

export interface FeedOptions {
  pollIntervalMs: number;
  log: FastifyBaseLogger;
  /**
   * Resolves once what this instance recorded so far is in the log (event-writer.ts): sync() and
   * drain() wait for it, so they read past this instance's changes answered before them.
   */
  beforeSync?: () => Promise<void>;
}

export class EventFeed {
  /** The last sequence number handed to the listeners. */
  private released = 0;
  private readonly listeners = new Set<FeedListener>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private gap: { seq: number; since: number } | undefined;
  private headCheckedAt = 0;
  private lastEventAt = Date.now();
  private pulling: Promise<void> = Promise.resolve();
  /** A read queued by sync() and not started yet: later callers share it. */
  private queuedSync: Promise<void> | undefined;
  /** No live connection on this instance: nobody would receive what is read, so nothing is. */
  private idle = true;
  private closeStream: (() => Promise<void>) | undefined;
  mode: FeedMode = 'poll';

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
    this.mode = (await this.log.hasChangeStreams()) ? 'change-stream' : 'poll';
    this.running = true;
    if (this.mode === 'change-stream') this.openStream();
    this.options.log.info({ mode: this.mode, position: this.released }, 'live events feed started');
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
      this.gap = undefined;
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
    await this.closeStream?.().catch(() => {});
    this.closeStream = undefined;
  }

  private openStream(): void {
    try {
      this.closeStream = this.log.watchInserts(
        () => this.wake(),
        (err) => {
          // The poll keeps delivering meanwhile; reopen the stream a little later.
          this.options.log.warn({ err }, 'live events change stream failed; reopening');
          this.closeStream = undefined;
          setTimeout(() => this.running && this.openStream(), 1000).unref();
        },
      );
    } catch (err) {
      this.options.log.warn({ err }, 'live events change stream could not be opened; polling');
    }
  }

  private interval(): number {
    if (this.mode === 'change-stream') return CHANGE_STREAM_POLL_MS;
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

  /** Reads and hands out everything that follows the position without a gap. */
  private async pull(): Promise<void> {
    if (this.idle) return;
    // Most polls find nothing: the first read asks for a few numbers, later ones for a full window.
    for (let window = FIRST_WINDOW; ; window = READ_WINDOW) {
      const found = await this.log.readRange(this.released + 1, window);
      const next: LiveEvent[] = [];
      for (const e of found) {
        if (e.seq !== this.released + next.length + 1) break;
        next.push(e);
      }
      if (next.length > 0) {
        this.gap = undefined;
        await this.deliver(next);
        if (next.length === window || next.length < found.length) continue;
        return;
      }
      // Nothing follows directly. Later numbers present, or handed out by the counter, mean a gap
      // (the counter is asked only now and then: more than a window of missing numbers is rare).
      const now = Date.now();
      if (found.length === 0) {
        if (now - this.headCheckedAt < GAP_WAIT_MS) return;
        this.headCheckedAt = now;
        if ((await this.log.head()) <= this.released) return;
      }
      const missing = this.released + 1;
      if (this.gap?.seq !== missing) this.gap = { seq: missing, since: now };
      if (now - this.gap.since < GAP_WAIT_MS) return;
      const skipTo = found.length > 0 ? found[0]!.seq - 1 : Math.min(await this.log.head(), this.released + window);
      this.options.log.warn(
        { from: missing, to: skipTo },
        'live events feed skipped sequence numbers that were never written',
      );
      this.released = skipTo;
      this.gap = undefined;
    }
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
