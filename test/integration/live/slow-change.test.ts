/**
 * Nothing acknowledged is lost from the live feed whatever the database's latency: one change's
 * writes are held for 5 s (a fault injected at the repository boundary: TopicRepository.adjustVotes,
 * the count a vote writes before its event) while other changes go on through both of two
 * instances on one real database. Every subscriber on both instances gets every event once, in the
 * log's order, the slow change's too, and no instance skips a hole in the log.
 */
import type { TopicView } from '../../../src/discussion';
import { TopicRepository } from '../../../src/discussion/topic.repository';
import { Factory, TestUser } from '../../helpers/factories';
import { Instance, liveClient, LiveClient, skippedGaps, startSecondInstance, wsUrlOf } from '../../helpers/live';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

const PAUSE_MS = 5000;

let s: TestServer;
let other: Instance;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let topic: TopicView;
const clients: LiveClient[] = [];

const ACTIVITY = `subscription($id: ID!) { topicActivity(topicId: $id) {
  cursor kind commentId topic { voteCount }
} }`;

beforeAll(async () => {
  s = await startTestServer();
  other = await startSecondInstance(s);
  f = new Factory(s);
  alice = await f.user('alice');
  bob = await f.user('bob');
  carol = await f.user('carol');
  topic = await f.topic(alice);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await Promise.all(clients.map((c) => c.dispose()));
  await other?.close();
  await s?.close();
});

it(`a change whose writes are held ${PAUSE_MS / 1000} s: every subscriber on both instances gets every event \
once, in order, the slow one's too; the others are not held up`, async () => {
  const topicId = parseInt(topic.id36, 36);
  // The vote's count on this topic is held; every other write goes through at once.
  let held: (() => void) | undefined;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const adjustVotes = TopicRepository.prototype.adjustVotes;
  jest.spyOn(TopicRepository.prototype, 'adjustVotes').mockImplementation(async function (
    this: TopicRepository,
    id: number,
    delta: number,
  ) {
    if (id === topicId && held) {
      const started = held;
      held = undefined;
      started();
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
    return adjustVotes.call(this, id, delta);
  });

  const subs = [liveClient(wsUrlOf(s.url)), liveClient(other.wsUrl)].flatMap((c) => {
    clients.push(c);
    return [c.subscribe(ACTIVITY, { id: topic.id36 }), c.subscribe(ACTIVITY, { id: topic.id36 })];
  });
  await new Promise((r) => setTimeout(r, 300));

  const ds = [s.agora.services.discussion, other.agora.services.discussion];
  let slowDone = false;
  const slow = ds[0]!.votes.vote(carol.actor, 'topic', topic.id36).then(() => (slowDone = true));
  await holding;
  // Meanwhile, changes through both instances, the slow change's own included, are answered and
  // delivered at once.
  const posted = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      ds[i % 2]!.comments.post(bob.actor, { topicId: topic.id36, markdown: `meanwhile ${i}` }),
    ),
  );
  for (const sub of subs) await sub.got.count(12, 3000);
  expect(slowDone).toBe(false);

  await slow;
  const after = [];
  for (let i = 0; i < 2; i++)
    after.push(await ds[i]!.comments.post(bob.actor, { topicId: topic.id36, markdown: `after ${i}` }));
  for (const sub of subs) await sub.got.count(15, 10_000);
  await new Promise((r) => setTimeout(r, 500));

  const seen = subs.map((sub) => sub.got.events());
  for (const events of seen) {
    expect(events).toHaveLength(15);
    const cursors = events.map((e) => Number(e.cursor));
    expect(new Set(cursors).size).toBe(15);
    expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
    expect(new Set(events.filter((e) => e.kind === 'COMMENT_POSTED').map((e) => e.commentId))).toEqual(
      new Set([...posted, ...after].map((c) => c.id36)),
    );
    // The slow change's event comes after the events of the changes that finished before it.
    const votes = events.filter((e) => e.kind === 'TOPIC_VOTES_CHANGED');
    expect(votes).toHaveLength(1);
    expect(events.indexOf(votes[0])).toBe(12);
    expect(votes[0].topic).toEqual({ voteCount: 1 });
  }
  // The log's order, the same on every subscriber of either instance.
  const order = (events: (typeof seen)[number]) => events.map((e) => `${e.cursor} ${e.kind} ${e.commentId}`);
  for (const events of seen.slice(1)) expect(order(events)).toEqual(order(seen[0]!));
  expect(await skippedGaps(s.url)).toBe(0);
  expect(await skippedGaps(other.url)).toBe(0);
});
