/**
 * The events collection: one document per recorded event under a sequence number (`_id`), which
 * is the position subscribers resume from.
 *
 * An event takes its number in the insert that writes it: the writer inserts at the number after
 * the last one it knows of, and the `_id` unique index refuses it if another writer was first (it
 * then finds the new end and tries again). A number is never taken before its event is written, so
 * no writer, however slow, can leave a hole for readers to wait on: a number is in use only once its
 * event is, and a writer only ever writes right after a number it saw in use. The log is dense from
 * its oldest kept event to its newest; the feed (feed.ts) reads it in order without waiting on
 * anything. This needs no transaction, only the unique index, and works the same on FerretDB and
 * MongoDB, with any number of instances writing.
 *
 * Pruning deletes the oldest events, so a writer must not trust a known end that is too old: the
 * number after it may have been written and pruned since, and writing it again would put an event
 * behind the readers. A known end is trusted for half the retention after the moment the number
 * after it was seen free (an event written after that moment is kept at least the retention); past
 * that the writer asks for the end again (`head`).
 */
import crypto from 'node:crypto';
import { Schema, type Model } from 'mongoose';
import { collectionOf, type Database } from '../db/connection';
import type { EventInput, EventKind, LiveEvent } from './types';

interface EventDoc extends EventInput {
  _id: number;
  /** When it was written (pruning goes by it). */
  at: Date;
  /** The writing batch's token: tells after a failed insert which of its events were written. */
  w?: string;
}

const eventSchema = new Schema<EventDoc>(
  {
    _id: { type: Number, required: true },
    at: { type: Date, required: true, index: true },
    w: String,
    kind: { type: String, required: true },
    topicId: Number,
    commentId: Number,
    parentId: Number,
    depth: Number,
    groupPath: String,
    authorId: Number,
    replyToUserId: Number,
    userId: Number,
  },
  { versionKey: false, _id: false },
);

/** Failed inserts (other than to a taken number) retried before the batch is given up. */
const MAX_FAILED_INSERTS = 5;
const RETRY_BASE_MS = 200;
/** How far a known end is probed in one read: the gallop's reach (2^40 numbers) and a refining step's width. */
const GALLOP_STEPS = 41;
const REFINE_PROBES = 64;

function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: number; writeErrors?: { code?: number }[] | { code?: number } };
  if (e.code === 11000) return true;
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : [];
  return writeErrors.length > 0 && writeErrors.every((w) => w.code === 11000);
}

export interface EventLogOptions {
  /** How long events are kept (LIVE_EVENT_RETENTION): a known end is trusted for half of it. */
  retentionMs: number;
}

export class EventLog {
  private readonly events: Model<EventDoc>;
  /** The highest number known to be in use (0: none known yet). */
  private top = 0;
  /** When the number after a known end was last seen free (0: never). */
  private topCheckedAt = 0;

  constructor(
    db: Database,
    private readonly options: EventLogOptions = { retentionMs: 3_600_000 },
  ) {
    this.events = db.model<EventDoc>('LiveEvent', eventSchema, 'events');
  }

  /**
   * Writes the events, in order, under consecutive numbers after the log's end (one insert for the
   * batch when no other instance wrote meanwhile). When another writer took a number first, the ordered
   * insert stops there; the events not written yet go after the new end. An insert that fails
   * otherwise (a lost connection) may have been written or not: the batch's token says which of its
   * events are in the log, and the rest is tried again a few times before the error is thrown.
   */
  async appendMany(inputs: readonly EventInput[]): Promise<void> {
    const token = crypto.randomBytes(9).toString('base64url');
    let rest = inputs.map((input) => stripUndefined(input));
    for (let failures = 0; rest.length > 0;) {
      if (Date.now() - this.topCheckedAt > this.options.retentionMs / 2) await this.head();
      const start = this.top + 1;
      const sentAt = Date.now();
      const at = new Date(sentAt);
      const docs = rest.map((input, i) => ({ ...input, _id: start + i, at, w: token }));
      try {
        await this.insert(docs);
        // The number after the batch was free when the insert was sent.
        this.seen(start + docs.length - 1, sentAt);
        return;
      } catch (err) {
        if (isDuplicateKey(err)) {
          const written =
            (err as { insertedCount?: number }).insertedCount ?? (await this.writtenBy(token, start, docs.length));
          rest = rest.slice(written);
          // start + written is taken: the end is there or after it.
          await this.endFrom(start + written);
          continue;
        }
        // Written or not: nothing is tried again before the log says which (guessing "not" could
        // write an event twice).
        let mine: number | undefined;
        let last = err;
        while (mine === undefined) {
          if (++failures > MAX_FAILED_INSERTS) throw last;
          await new Promise((r) => setTimeout(r, RETRY_BASE_MS * 2 ** (failures - 1)));
          mine = await this.writtenBy(token, start, docs.length).catch((e: unknown) => {
            last = e;
            return undefined;
          });
        }
        rest = rest.slice(mine);
        if (mine > 0) this.seen(start + mine - 1);
      }
    }
  }

  /** The one insert command of a batch (its own method: tests inject faults here). */
  protected async insert(docs: EventDoc[]): Promise<void> {
    await collectionOf(this.events).insertMany(docs, { ordered: true });
  }

  /** How many of the numbers start.. hold the batch's own events (a prefix, since its insert is ordered). */
  private async writtenBy(token: string, start: number, count: number): Promise<number> {
    const docs = await this.readDocs(numbers(start, count));
    let n = 0;
    for (const d of docs) {
      if (d._id !== start + n || d.w !== token) break;
      n++;
    }
    return n;
  }

  /**
   * The last number in use: the newest event by time (an index read), then the numbers after it
   * probed until one is free (another instance's clock may run behind). 0 for an empty log.
   */
  async head(): Promise<number> {
    const [latest] = await this.events.collection
      .find({}, { projection: { _id: 1 } })
      .sort({ at: -1 })
      .limit(1)
      .toArray();
    return this.endFrom(Math.max(this.top, (latest?._id as unknown as number) ?? 0));
  }

  /**
   * The first number in use after `seq` (0 if none). A range read, which FerretDB answers by reading
   * the whole collection: only for a reader that pruning overtook (feed.ts), never on a hot path.
   */
  async firstAfter(seq: number): Promise<number> {
    const [first] = await this.events.collection
      .find({ _id: { $gt: seq } } as never, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .limit(1)
      .toArray();
    return (first?._id as unknown as number) ?? 0;
  }

  /**
   * The end of the log, given a number in use (or 0): numbers after it at doubling distances are
   * probed in one read, then the gap between the last one found and the next one free is narrowed
   * (the log has no holes after a number in use, so the end lies between them).
   */
  private async endFrom(known: number): Promise<number> {
    const checkedAt = Date.now();
    let low = known;
    const probes = Array.from({ length: GALLOP_STEPS }, (_, i) => known + 2 ** i);
    const found = new Set((await this.readDocs(probes)).map((d) => d._id));
    let high = known + 2 ** GALLOP_STEPS;
    for (const p of probes) {
      if (found.has(p)) low = p;
      else {
        high = p;
        break;
      }
    }
    while (high - low > 1) {
      const step = Math.ceil((high - low) / REFINE_PROBES);
      const ids: number[] = [];
      for (let id = low + step; id < high; id += step) ids.push(id);
      const present = new Set((await this.readDocs(ids)).map((d) => d._id));
      let next = high;
      for (const id of ids) {
        if (present.has(id)) low = id;
        else {
          next = id;
          break;
        }
      }
      high = next;
    }
    this.seen(low, checkedAt);
    return this.top;
  }

  /** Records that `seq` is in use; with `freeAt`, that the number after it was free at that time. */
  private seen(seq: number, freeAt?: number): void {
    if (seq > this.top) this.top = seq;
    if (freeAt !== undefined && seq >= this.top) this.topCheckedAt = Math.max(this.topCheckedAt, freeAt);
  }

  /**
   * The events numbered from..from+count-1 that exist, in order. Asked by exact `_id`s, which
   * every backend answers from the `_id` index (FerretDB's SQLite backend would read the whole
   * collection for a range query).
   */
  async readRange(from: number, count: number): Promise<LiveEvent[]> {
    const docs = await this.readDocs(numbers(from, count));
    for (const d of docs) this.seen(d._id);
    return docs.map(toEvent);
  }

  private async readDocs(ids: number[]): Promise<EventDoc[]> {
    // The driver's own find: this runs several times a second on every instance, and the
    // documents need no casting.
    const docs = (await this.events.collection.find({ _id: { $in: ids } } as never).toArray()) as unknown as EventDoc[];
    return docs.sort((a, b) => a._id - b._id);
  }

  /** Whether the event numbered `seq` is still kept (a resume cursor names one). */
  async has(seq: number): Promise<boolean> {
    return (await this.events.countDocuments({ _id: seq })) > 0;
  }

  /**
   * Deletes events written before `before` (they can no longer be resumed from), except the last
   * one: the log's end is where the next number comes from, so an idle log never starts again at 1.
   */
  async prune(before: Date): Promise<number> {
    const end = await this.head();
    const r = await this.events.deleteMany({ at: { $lt: before }, _id: { $lt: end } });
    return r.deletedCount;
  }
}

function numbers(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

function stripUndefined(input: EventInput): EventInput {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as unknown as EventInput;
}

function toEvent(d: EventDoc): LiveEvent {
  const { _id, w: _w, ...rest } = d;
  return { ...rest, kind: rest.kind as EventKind, seq: _id };
}
