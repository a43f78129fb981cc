/**
 * The live events writer and log (src/events/event-writer.ts, event-log.ts) on the real database:
 * an event takes its number when it is written, after the events of changes that finished before
 * it; events waiting together go in one insert; writers of several instances at once leave every
 * event once under dense numbers; a known end too old to trust is asked for again.
 */
import { MongoNetworkError } from 'mongodb';
import { EventLog } from '../../../src/events/event-log';
import { EventWriter } from '../../../src/events/event-writer';
import { EventFeed } from '../../../src/events/feed';
import type { EventInput } from '../../../src/events/types';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { gql } from '../graphql/helpers';
import { exchangesOf, sentTogetherAfter } from '../../helpers/exchanges';

jest.setTimeout(60_000);

let s: TestServer;
let log: EventLog;
const errors: unknown[] = [];
const logger = { error: (...args: unknown[]) => errors.push(args) } as never;

beforeAll(async () => {
  s = await startTestServer();
  log = new EventLog(s.agora.db);
});
afterAll(async () => s?.close());
afterEach(() => expect(errors).toEqual([]));

const voted = (topicId: number): EventInput => ({ kind: 'topic.voted', topicId, authorId: 1 });

/** Runs fn and returns the commands it sent (name and collection). */
async function commandsOf(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const unwatch = s.agora.db.watchCommands((name, command) => seen.push(`${name} ${String(command[name])}`));
  try {
    await fn();
  } finally {
    unwatch();
  }
  return seen;
}

it(`records without waiting; the events written later keep their recording order \
under consecutive numbers, in one insert`, async () => {
  let wakes = 0;
  const writer = new EventWriter(log, () => wakes++, logger);
  const before = await log.head();
  let queued = 0;
  const commands = await commandsOf(async () => {
    for (let i = 1; i <= 20; i++) writer.record(voted(1000 + i));
    // Nothing was written yet: recording only queued them.
    queued = wakes;
    await writer.flushed();
  });
  expect(queued).toBe(0);
  // The 20 events that waited together take their numbers in one insert.
  expect(commands).toEqual(['insert events']);
  const events = await log.readRange(before + 1, 20);
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => before + 1 + i));
  expect(events.map((e) => e.topicId)).toEqual(Array.from({ length: 20 }, (_, i) => 1001 + i));
  expect(wakes).toBe(1);
});

it('events recorded while a batch is written go into the next one, after it', async () => {
  const writer = new EventWriter(log, () => {}, logger);
  const before = await log.head();
  writer.record(voted(1));
  const first = writer.flushed();
  // Recorded after the first batch was scheduled: written after it, in order.
  await Promise.resolve();
  writer.record(voted(2));
  writer.record(voted(3));
  await first;
  await writer.flushed();
  const events = await log.readRange(before + 1, 3);
  expect(events.map((e) => [e.seq - before, e.topicId])).toEqual([
    [1, 1],
    [2, 2],
    [3, 3],
  ]);
  expect(await log.head()).toBe(before + 3);
});

it('writers of several instances at once: every event once, dense numbers, each writer in its own order', async () => {
  // Each log is another instance's: it learns of the others' numbers only when its insert is refused.
  const logs = [log, new EventLog(s.agora.db), new EventLog(s.agora.db)];
  const before = await log.head();
  const writers = logs.map((l) => new EventWriter(l, () => {}, logger));
  const recorded: Promise<void>[] = [];
  for (let i = 0; i < 120; i++) {
    recorded.push(writers[i % 3]!.record(voted(10_000 + i)));
    if (i % 7 === 0) await new Promise((r) => setImmediate(r));
  }
  await Promise.all(recorded);
  const events = await log.readRange(before + 1, 130);
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 120 }, (_, i) => before + 1 + i));
  expect(new Set(events.map((e) => e.topicId)).size).toBe(120);
  for (let w = 0; w < 3; w++) {
    const own = events.map((e) => e.topicId! - 10_000).filter((i) => i % 3 === w);
    expect(own).toEqual([...own].sort((a, b) => a - b));
  }
  expect(await log.head()).toBe(before + 120);
});

it("a change's event is in the log when its answer arrives", async () => {
  const f = new Factory(s);
  const writer = await f.user('writer');
  await f.group('test');
  const before = await log.head();
  const r = await gql(
    s,
    'mutation { postTopic(input: { group: "test", title: "Live", markdown: "x" }) { id36 } }',
    {},
    writer.token,
  );
  expect(r.body.errors).toBeUndefined();
  await s.agora.eventsWritten();
  const events = await log.readRange(before + 1, 5);
  expect(events.map((e) => [e.kind, e.topicId])).toEqual([['topic.posted', parseInt(r.body.data.postTopic.id36, 36)]]);
});

/** A promise settled from outside. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

it("an event handed its change's last writes is written once they are done, after later ones", async () => {
  const writer = new EventWriter(log, () => {}, logger);
  const before = await log.head();
  const change = deferred();
  const recorded = writer.record(voted(41), change.promise);
  // The slow change holds nothing up: an event recorded after it is written at once, before it.
  await writer.record(voted(42));
  expect((await log.readRange(before + 1, 2)).map((e) => e.topicId)).toEqual([42]);
  change.resolve();
  await recorded;
  expect((await log.readRange(before + 1, 3)).map((e) => [e.seq - before, e.topicId])).toEqual([
    [1, 42],
    [2, 41],
  ]);
});

it('an event whose change failed is not written and takes no number; the others go on', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const writer = new EventWriter(log, () => {}, logger);
    const before = await log.head();
    const failing = deferred();
    writer.record(voted(51));
    // Rejected before its batch is written: nothing may be left unhandled.
    const gone = writer.record(voted(52), failing.promise);
    failing.reject(new Error('the change failed'));
    writer.record(voted(53), Promise.resolve());
    await gone;
    await writer.flushed();
    const events = await log.readRange(before + 1, 3);
    expect(events.map((e) => [e.seq - before, e.topicId])).toEqual([
      [1, 51],
      [2, 53],
    ]);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

/** A log whose next insert fails like a lost connection, before or after the server wrote it. */
class FlakyLog extends EventLog {
  failNext: 'before' | 'after' | undefined;
  failures = 0;

  protected override async insert(docs: Parameters<EventLog['insert']>[0]): Promise<void> {
    const fail = this.failNext;
    this.failNext = undefined;
    if (fail === 'before') this.failures++;
    if (fail === 'before') throw new MongoNetworkError('connection lost before the insert');
    await super.insert(docs);
    if (fail === 'after') this.failures++;
    if (fail === 'after') throw new MongoNetworkError('connection lost after the insert');
  }
}

it.each(['before', 'after'] as const)(
  'an insert that fails %s the server wrote it is tried again: every event once, in order',
  async (when) => {
    const flaky = new FlakyLog(s.agora.db);
    const writer = new EventWriter(flaky, () => {}, logger);
    const before = await log.head();
    flaky.failNext = when;
    await Promise.all([writer.record(voted(81)), writer.record(voted(82)), writer.record(voted(83))]);
    expect(flaky.failures).toBe(1);
    const events = await log.readRange(before + 1, 6);
    expect(events.map((e) => [e.seq - before, e.topicId])).toEqual([
      [1, 81],
      [2, 82],
      [3, 83],
    ]);
  },
);

describe("a change's event costs one round trip after its last writes", () => {
  let f: Factory;

  beforeAll(() => {
    f = new Factory(s);
  });

  it("a vote: the topic's $inc, then the event's insert", async () => {
    const author = await f.user();
    const voter = await f.user();
    // Posted through the app, whose log then knows the end (no other writer meanwhile).
    const topic = await f.topic(author, { group: 'rounds' });
    const seen = await exchangesOf(s, () => f.d.votes.vote(voter.actor, 'topic', topic.id36));
    expect(sentTogetherAfter(seen, 'answered findAndModify marks')).toEqual(['sent findAndModify topics']);
    expect(sentTogetherAfter(seen, 'answered findAndModify topics')).toEqual(['sent insert events']);
    // The voter's record (this actor was not made from a token), the topic, then the three writes.
    expect(seen.filter((l) => l.startsWith('sent'))).toEqual([
      'sent find users',
      'sent find topics',
      'sent findAndModify marks',
      'sent findAndModify topics',
      'sent insert events',
    ]);
  });

  it("a comment post: the topic's count, then the event", async () => {
    const author = await f.user();
    const poster = await f.user();
    const topic = await f.topic(author, { group: 'rounds' });
    const seen = await exchangesOf(s, () => f.comment(poster, topic));
    expect(sentTogetherAfter(seen, 'answered insert comments')).toEqual(['sent findAndModify topics']);
    expect(sentTogetherAfter(seen, 'answered findAndModify topics')).toEqual(['sent insert events']);
    // The topic's count of posts keys the comment cache: a post writes no new version (CommentRepository.forTopic).
    expect(seen.filter((e) => e.includes('comment_versions'))).toEqual([]);
  });
});

describe('pruning (a database of its own: events are deleted under the writers)', () => {
  let pruned: TestServer;
  let view: EventLog;

  beforeAll(async () => {
    pruned = await startTestServer();
    view = new EventLog(pruned.agora.db);
  });
  afterAll(async () => pruned?.close());

  it('a known end older than half the retention is asked for again: no pruned number is written twice', async () => {
    const retentionMs = 1000;
    const stale = new EventLog(pruned.agora.db, { retentionMs });
    await new EventWriter(stale, () => {}, logger).record(voted(61));
    const end = await view.head();
    // Another instance writes on; then the oldest of those are pruned, the newest kept.
    const other = new EventWriter(new EventLog(pruned.agora.db), () => {}, logger);
    await Promise.all([other.record(voted(62)), other.record(voted(63)), other.record(voted(64))]);
    await new Promise((r) => setTimeout(r, retentionMs / 2 + 100));
    await pruned.agora.db.conn.collection('events').deleteMany({ _id: { $in: [end, end + 1, end + 2] } as never });
    await new EventWriter(stale, () => {}, logger).record(voted(65));
    const events = await view.readRange(end, 6);
    expect(events.map((e) => [e.seq - end, e.topicId])).toEqual([
      [3, 64],
      [4, 65],
    ]);
  });

  it('pruning keeps the last event, so numbers go on after an idle spell', async () => {
    const writer = new EventWriter(view, () => {}, logger);
    await writer.record(voted(71));
    const end = await view.head();
    await view.prune(new Date(Date.now() + 60_000));
    expect((await view.readRange(end - 5, 10)).map((e) => e.seq)).toEqual([end]);
    // A new instance (knowing nothing) writes after it.
    await new EventWriter(new EventLog(pruned.agora.db), () => {}, logger).record(voted(72));
    expect((await view.readRange(end, 2)).map((e) => [e.seq - end, e.topicId])).toEqual([
      [0, 71],
      [1, 72],
    ]);
  });

  it('a reader that pruning overtook goes on from the first event kept, and counts each hole it skipped', async () => {
    const writer = new EventWriter(view, () => {}, logger);
    const warned: unknown[] = [];
    let skipped = 0;
    const got: number[] = [];
    let gate: () => void = () => {};
    const held = new Promise<void>((r) => (gate = r));
    const feed = new EventFeed(view, {
      pollIntervalMs: 20,
      log: {
        info: () => {},
        warn: (...a: unknown[]) => warned.push(a),
        error: (...a: unknown[]) => errors.push(a),
      } as never,
      onGapSkipped: () => skipped++,
      endCheckMs: 100,
    });
    feed.listen(async (batch) => {
      got.push(...batch.map((e) => e.topicId!));
      // The reader is held after its first event, as a paused process would be.
      if (got.length === 1) await held;
    });
    await feed.start();
    await feed.want();
    try {
      await writer.record(voted(1));
      for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(got).toEqual([1]);
      for (let i = 2; i <= 100; i++) writer.record(voted(i));
      await writer.flushed();
      await new Promise((r) => setTimeout(r, 20));
      const cut = new Date();
      await new Promise((r) => setTimeout(r, 20));
      for (let i = 101; i <= 120; i++) writer.record(voted(i));
      await writer.flushed();
      // Pruned while the reader was held: 2..100 (more than a read's window), then 110 and 111.
      expect(await view.prune(cut)).toBeGreaterThanOrEqual(99);
      const end = await view.head();
      await pruned.agora.db.conn.collection('events').deleteMany({ _id: { $in: [end - 10, end - 9] } as never });
      gate();
      for (let i = 0; i < 200 && got.length < 19; i++) await new Promise((r) => setTimeout(r, 20));
      expect(got).toEqual([1, ...Array.from({ length: 20 }, (_, i) => 101 + i).filter((n) => n !== 110 && n !== 111)]);
      expect(skipped).toBe(2);
      expect(warned).toHaveLength(2);
    } finally {
      await feed.stop();
    }
  });
});
