/**
 * The events collection: one document per recorded event under a sequence number (`_id`), which
 * is the position subscribers resume from. Sequence numbers come from a counter document, as the
 * discussion's ids do (counter.repository.ts), with the same arbiter: the `_id` unique index.
 */
import { Schema, type Model } from 'mongoose';
import { collectionOf, type Database } from '../db/connection';
import type { EventInput, EventKind, LiveEvent } from './types';

interface EventDoc extends EventInput {
  _id: number;
  at: Date;
}

interface CounterDoc {
  _id: string;
  seq: number;
}

const eventSchema = new Schema<EventDoc>(
  {
    _id: { type: Number, required: true },
    at: { type: Date, required: true, index: true },
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

const counterSchema = new Schema<CounterDoc>({ _id: String, seq: Number }, { versionKey: false, _id: false });

const COUNTER_ID = 'event';
/** Contenders for one number retry with a fresh one; far more attempts than concurrent writers need. */
const MAX_ATTEMPTS = 50;

function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: number }).code === 11000;
}

export class EventLog {
  private readonly events: Model<EventDoc>;
  private readonly counters: Model<CounterDoc>;

  constructor(private readonly db: Database) {
    this.events = db.model<EventDoc>('LiveEvent', eventSchema, 'events');
    this.counters = db.model<CounterDoc>('LiveEventCounter', counterSchema, 'event_counters');
  }

  /**
   * Writes the events, in order, under consecutive sequence numbers taken with one `$inc` (two
   * commands for the whole batch). An event may come with `kept`, the outcome of the change it
   * reports, still being written while its number is taken: the insert waits for it, so an event is
   * never in the log before its change, and an event whose change failed is not written (its number
   * stays unused: the feed skips such a gap after a while, feed.ts). An insert that finds a number
   * taken (the counter fell behind: reset by hand, data restored without it) stops the ordered
   * insert there; the events not written yet then go one at a time through append, which moves the
   * counter on.
   */
  async appendMany(events: readonly { input: EventInput; at: Date; kept?: Promise<boolean> }[]): Promise<void> {
    if (events.length === 0) return;
    const last = await this.allocate(events.length);
    const kept = await Promise.all(events.map((e) => e.kept ?? true));
    const numbered = events.map((e, i) => ({ e, _id: last - events.length + 1 + i })).filter((_, i) => kept[i]);
    if (numbered.length === 0) return;
    let inserted: number;
    try {
      const docs = numbered.map(({ e, _id }) => ({ ...stripUndefined(e.input), _id, at: e.at }));
      await collectionOf(this.events).insertMany(docs as EventDoc[], { ordered: true });
      return;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      inserted = (err as { insertedCount?: number }).insertedCount ?? 0;
    }
    for (const { e } of numbered.slice(inserted)) await this.append(e.input, e.at);
  }

  /** Writes the event under the next free sequence number and returns that number. */
  async append(input: EventInput, at: Date): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const seq = await this.allocate(1);
      try {
        await this.events.create({ ...stripUndefined(input), _id: seq, at });
        return seq;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= MAX_ATTEMPTS) throw err;
        // The counter fell behind the log (reset by hand, data restored without it): move it
        // past the highest number in use and try again.
        const top = await this.events.findOne({}, { _id: 1 }).sort({ _id: -1 }).lean();
        if (top) await this.counters.updateOne({ _id: COUNTER_ID, seq: { $lt: top._id } }, { $set: { seq: top._id } });
      }
    }
  }

  /** Takes `count` numbers; returns the last of them. */
  private async allocate(count: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        // The driver's own findAndModify: one per batch written, nothing to cast.
        const doc = await collectionOf(this.counters).findOneAndUpdate(
          { _id: COUNTER_ID },
          { $inc: { seq: count } },
          { upsert: true, returnDocument: 'after' },
        );
        return doc!.seq;
      } catch (err) {
        if (isDuplicateKey(err) && attempt < 3) continue;
        throw err;
      }
    }
  }

  /** The last sequence number handed out (0 before any event). */
  async head(): Promise<number> {
    const doc = await this.counters.findOne({ _id: COUNTER_ID }).lean();
    return doc?.seq ?? 0;
  }

  /**
   * The events numbered from..from+count-1 that exist, in order. Asked by exact `_id`s, which
   * every backend answers from the `_id` index (FerretDB's SQLite backend would read the whole
   * collection for a range query).
   */
  async readRange(from: number, count: number): Promise<LiveEvent[]> {
    const ids = Array.from({ length: count }, (_, i) => from + i);
    // The driver's own find: this runs several times a second on every instance, and the
    // documents need no casting.
    const docs = (await this.events.collection.find({ _id: { $in: ids } } as never).toArray()) as unknown as EventDoc[];
    return docs.map(toEvent).sort((a, b) => a.seq - b.seq);
  }

  /** Whether the event numbered `seq` is still kept (a resume cursor names one). */
  async has(seq: number): Promise<boolean> {
    return (await this.events.countDocuments({ _id: seq })) > 0;
  }

  /** Deletes events recorded before `before` (they can no longer be resumed from). */
  async prune(before: Date): Promise<number> {
    const r = await this.events.deleteMany({ at: { $lt: before } });
    return r.deletedCount;
  }

  /**
   * Whether the deployment offers change streams: a replica set member says so in `hello`
   * (`setName`); FerretDB and a standalone mongod do not.
   */
  async hasChangeStreams(): Promise<boolean> {
    try {
      const hello = await this.db.conn.db!.admin().command({ hello: 1 });
      return typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
    } catch {
      return false;
    }
  }

  /** Calls `onInsert` for each event inserted from now on (replica sets only); returns a closer. */
  watchInserts(onInsert: () => void, onError: (err: unknown) => void): () => Promise<void> {
    const stream = this.events.collection.watch([{ $match: { operationType: 'insert' } }], { fullDocument: 'default' });
    stream.on('change', () => onInsert());
    stream.on('error', onError);
    return () => stream.close();
  }
}

function stripUndefined(input: EventInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

function toEvent(d: EventDoc): LiveEvent {
  const { _id, ...rest } = d;
  return { ...rest, kind: rest.kind as EventKind, seq: _id };
}
