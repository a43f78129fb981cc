/**
 * Writes recorded events to the log in the order their changes finished: an event joins this
 * instance's queue once its change is done (at once when recorded without `after`), and one writer
 * drains the queue, everything waiting in one insert (EventLog.appendMany: one command however many
 * events wait, when no other instance wrote meanwhile). An event waiting for its change's last writes
 * holds nothing up: events of other changes are written meanwhile, and it takes its number only when
 * it is written, after them.
 *
 * A change's answer waits for its event (record() resolves once it is written): a subscription
 * opened on any instance after the answer reads the log past it, so it never receives a change
 * answered before it existed. (Writing after the answer was tried: it broke that guarantee across
 * instances, since another instance cannot wait for this one's queue.) Nothing is dropped silently:
 * an event the log refuses (after its retries, event-log.ts) is logged with its contents, never turned
 * into a failed request. `flushed()` resolves once everything recorded before the call has been
 * written or given up, changes still running included (the module's stop waits for it); `written()`
 * once what is queued now is (a subscription's start waits for that, never for a slow change).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EventLog } from './event-log';
import type { EventInput } from './types';

export class EventWriter {
  private queue: EventInput[] = [];
  /** The batch being written and every batch scheduled after it. */
  private tail: Promise<void> = Promise.resolve();
  /** Every record() not settled yet (its change running, or its event queued or being written). */
  private readonly unsettled = new Set<Promise<void>>();

  constructor(
    private readonly log: EventLog,
    private readonly onWritten: () => void,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /**
   * Queues the event, now or, with `after` (the rest of the change still being written), once
   * `after` is done; not at all if `after` fails (its caller sees that failure itself). Resolves once
   * the event is written (or refused and logged), or at once after a failed `after`.
   */
  record(input: EventInput, after?: Promise<unknown>): Promise<void> {
    const done =
      after === undefined
        ? this.enqueue(input)
        : after.then(
            () => this.enqueue(input),
            () => undefined,
          );
    this.unsettled.add(done);
    void done.then(() => this.unsettled.delete(done));
    return done;
  }

  /** Resolves once every event recorded before this call is written, refused, or dropped with its failed change. */
  async flushed(): Promise<void> {
    await Promise.all([...this.unsettled]);
  }

  /** Resolves once the events queued now are written (or refused and logged). */
  written(): Promise<void> {
    return this.tail;
  }

  private enqueue(input: EventInput): Promise<void> {
    this.queue.push(input);
    // The first event of a batch schedules its write; later ones join it until it starts.
    if (this.queue.length === 1) this.tail = this.tail.then(() => this.writeBatch());
    return this.tail;
  }

  private async writeBatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      await this.log.appendMany(batch);
    } catch (err) {
      // The changes themselves are done; live subscribers miss these events (and a client resuming
      // from a cursor would too). Logged, never turned into a failed request.
      for (const e of batch) this.logger.error({ err, event: e }, 'could not record a live event');
    }
    this.onWritten();
  }
}
