/**
 * Writes recorded events to the log after the change that recorded them has been answered, in the
 * order they were recorded: recording is a push onto this instance's queue, and one writer drains
 * it, everything queued at once under one block of sequence numbers (EventLog.appendMany: two
 * commands however many events wait). So a write's reply does not wait for its event's two round
 * trips, and a burst of changes costs two commands per batch instead of two per change.
 *
 * Nothing is dropped silently: an event the log refuses is logged with its contents (as before,
 * when the request recorded it itself), and `flushed()` resolves once everything recorded before
 * the call has been written — the feed waits for it before a new subscription reads the log's end
 * (so a change answered before subscribing is never delivered to that subscription) and before the
 * shutdown drain, and the module waits for it before the database connection closes. What a
 * process killed outright had queued is lost, as a change cut off before its event always was:
 * the window is the few milliseconds between an answer and its batch's insert.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EventLog } from './event-log';
import type { EventInput } from './types';

interface Queued {
  input: EventInput;
  at: Date;
}

export class EventWriter {
  private queue: Queued[] = [];
  /** The batch being written and every batch scheduled after it. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: EventLog,
    private readonly written: () => void,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Queues the event (timestamped now); it is written after the batches before it. */
  record(input: EventInput): void {
    this.queue.push({ input, at: new Date() });
    // The first event of a batch schedules its write; later ones join it until it starts.
    if (this.queue.length === 1) this.tail = this.tail.then(() => this.writeBatch());
  }

  /** Resolves once every event recorded before this call is written (or refused and logged). */
  flushed(): Promise<void> {
    return this.tail;
  }

  private async writeBatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      await this.log.appendMany(batch);
    } catch (err) {
      // The changes themselves are done and answered; live subscribers miss these events (and a
      // client resuming from a cursor would too). Logged, never turned into a failed request.
      for (const e of batch) this.logger.error({ err, event: e.input }, 'could not record a live event');
    }
    this.written();
  }
}
