/**
 * Writes recorded events to the log in the order they were recorded: recording is a push onto this
 * instance's queue, and one writer drains it, everything queued at once under one block of sequence
 * numbers (EventLog.appendMany: two commands however many events wait). One request at a time, each
 * change's event costs its two commands as before; under load, changes that arrive while a batch is
 * written share the next batch's two commands instead of taking two each.
 *
 * A change may hand over its last writes with the event (record's `after`): the batch's numbers are
 * taken while they run and the insert waits for them, one round trip fewer per change.
 *
 * A change's answer waits for its event's batch (record() resolves then): a subscription opened on
 * any instance after the answer reads the log past it, so it never receives a change answered before
 * it existed. (Writing after the answer was tried: it broke that guarantee across instances, since
 * another instance cannot wait for this one's queue.) Nothing is dropped silently: an event the log
 * refuses is logged with its contents, never turned into a failed request. `flushed()` resolves once
 * everything recorded before the call has been written (the shutdown drain and the module's stop
 * wait for it).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EventLog } from './event-log';
import type { EventInput } from './types';

interface Queued {
  input: EventInput;
  at: Date;
  /** Whether the change it reports succeeded (EventLog.appendMany waits for it before the insert). */
  kept?: Promise<boolean>;
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

  /**
   * Queues the event (timestamped now); it is written after the batches before it. Resolves once
   * its batch is written (or refused and logged): the change's answer waits for that, so a
   * subscription opened on any instance after the answer starts after this event.
   *
   * `after`, when given, is the rest of the change still being written: the batch takes its
   * numbers meanwhile and inserts the event once `after` is done (not at all if it fails), so a
   * change's last writes and its event's first command share a round trip.
   */
  record(input: EventInput, after?: Promise<unknown>): Promise<void> {
    // Settled into a boolean at once: a change that fails before its batch is written leaves no
    // unhandled rejection behind (its caller sees the failure through its own `after`).
    const kept = after?.then(
      () => true,
      () => false,
    );
    this.queue.push({ input, at: new Date(), kept });
    // The first event of a batch schedules its write; later ones join it until it starts.
    if (this.queue.length === 1) this.tail = this.tail.then(() => this.writeBatch());
    return this.tail;
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
