/**
 * The live events writer (src/events/event-writer.ts) on the real database: events recorded by
 * changes are written in recording order, a waiting batch under one block of
 * sequence numbers; flushed() covers everything recorded before it; a counter that fell behind the
 * log is caught up with.
 */
import { EventLog } from '../../../src/events/event-log';
import { EventWriter } from '../../../src/events/event-writer';
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
under consecutive numbers`, async () => {
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
  // One block of 20 numbers and one insert for the 20 events that waited together.
  expect(commands).toEqual(['findAndModify event_counters', 'insert events']);
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

it('a counter that fell behind the log is caught up with: every event is written under a free number', async () => {
  const writer = new EventWriter(log, () => {}, logger);
  writer.record(voted(7));
  await writer.flushed();
  const top = await log.head();
  // Reset by hand (or restored without it): the next numbers are taken.
  await s.agora.db.conn.collection('event_counters').updateOne({ _id: 'event' as never }, { $set: { seq: top - 3 } });
  for (const id of [8, 9, 10]) writer.record(voted(id));
  await writer.flushed();
  const events = await log.readRange(top - 2, 10);
  expect(events.filter((e) => e.seq > top).map((e) => e.topicId)).toEqual([8, 9, 10]);
  expect(new Set(events.map((e) => e.seq)).size).toBe(events.length);
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

it("an event handed its change's last writes takes its number meanwhile and is written after them", async () => {
  const writer = new EventWriter(log, () => {}, logger);
  const before = await log.head();
  const change = deferred();
  const recorded = writer.record(voted(41), change.promise);
  // The number is taken while the change is still being written; the event is not in the log yet.
  for (let i = 0; i < 100 && (await log.head()) === before; i++) await new Promise((r) => setTimeout(r, 5));
  expect(await log.head()).toBe(before + 1);
  await new Promise((r) => setTimeout(r, 50));
  expect(await log.readRange(before + 1, 1)).toEqual([]);
  change.resolve();
  await recorded;
  expect((await log.readRange(before + 1, 1)).map((e) => [e.seq, e.topicId])).toEqual([[before + 1, 41]]);
});

it('an event whose change failed is not written; its number stays unused and the batch goes on', async () => {
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
      [3, 53],
    ]);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

describe("a change's last writes and its event's number share a round trip", () => {
  let f: Factory;

  beforeAll(() => {
    f = new Factory(s);
  });

  it("a vote: the topic's $inc beside the event's number, the event after the $inc", async () => {
    const author = await f.user();
    const voter = await f.user();
    const topic = await f.topic(author, { group: 'rounds' });
    const seen = await exchangesOf(s, () => f.d.votes.vote(voter.actor, 'topic', topic.id36));
    expect(sentTogetherAfter(seen, 'answered findAndModify marks')).toEqual(
      ['sent findAndModify event_counters', 'sent findAndModify topics'].sort(),
    );
    expect(seen.indexOf('sent insert events')).toBeGreaterThan(seen.indexOf('answered findAndModify topics'));
    // The voter's record (this actor was not made from a token), the topic, then the three writes.
    expect(seen.filter((l) => l.startsWith('sent'))).toEqual([
      'sent find users',
      'sent find topics',
      'sent findAndModify marks',
      'sent findAndModify topics',
      'sent findAndModify event_counters',
      'sent insert events',
    ]);
  });

  it("a comment post: the topic's count and the event's number, then the event", async () => {
    const author = await f.user();
    const poster = await f.user();
    const topic = await f.topic(author, { group: 'rounds' });
    const seen = await exchangesOf(s, () => f.comment(poster, topic));
    expect(sentTogetherAfter(seen, 'answered insert comments')).toEqual(
      ['sent findAndModify event_counters', 'sent findAndModify topics'].sort(),
    );
    const inserted = seen.indexOf('sent insert events');
    expect(inserted).toBeGreaterThan(seen.indexOf('answered findAndModify topics'));
    // The topic's count of posts keys the comment cache: a post writes no new version (CommentRepository.forTopic).
    expect(seen.filter((e) => e.includes('comment_versions'))).toEqual([]);
  });
});
