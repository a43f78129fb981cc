/**
 * Per-account limits on users' writes (issue 43), on their default values: a burst from one account
 * (a script) is refused beyond the limit with TOO_MANY_REQUESTS, HTTP 429, `extensions.retryAfter`
 * and Retry-After, however many requests arrive at once; a person's pace, replayed on the domain
 * clock, is never refused; admins are not limited. Real HTTP (GraphQL) and the real database.
 */
import { loadConfig } from '../../../src/config';
import type { CommentView } from '../../../src/discussion/views';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

const defaults = loadConfig({ PATH: process.env.PATH }).discussion.writeLimits;

let s: TestServer;
let f: Factory;
let author: TestUser;
let admin: TestUser;

beforeAll(async () => {
  // The test servers turn these limits off; this one runs on the defaults.
  s = await startTestServer({
    TOPIC_RATE_LIMIT: String(defaults.topic.limit),
    COMMENT_RATE_LIMIT: String(defaults.comment.limit),
    VOTE_RATE_LIMIT: String(defaults.vote.limit),
    LABEL_RATE_LIMIT: String(defaults.label.limit),
  });
  f = new Factory(s);
  author = await f.user('writer');
  admin = await f.user('moderator', { admin: true });
});
afterAll(async () => {
  await s?.close();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, any> }[] };
}

async function gql(token: string, query: string, variables: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Answer['body'] };
}

const POST_COMMENT = 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id36 } } }';
const POST_TOPIC = 'mutation($i: PostTopicInput!) { postTopic(input: $i) { id36 } }';
const VOTE_COMMENT = 'mutation($id: ID!) { voteComment(id: $id) { id36 } }';
const LABEL_COMMENT = 'mutation($id: ID!) { labelComment(id: $id, label: JOKE) { id36 } }';

/** Sends all at once; checks every refusal's shape; returns how many were accepted. */
async function burst(n: number, send: (i: number) => Promise<Answer>, reason: string, window: number) {
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
  const refused = answers.filter((a) => a.status === 429);
  for (const a of refused) {
    expect(a.retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(Number(a.retryAfter)).toBeLessThanOrEqual(window);
    expect(a.body.data ?? null).toBeNull();
    expect(a.body.errors).toEqual([
      expect.objectContaining({
        extensions: expect.objectContaining({ code: 'TOO_MANY_REQUESTS', reason, retryAfter: Number(a.retryAfter) }),
      }),
    ]);
  }
  const accepted = answers.filter((a) => a.status === 200 && !a.body.errors);
  expect(accepted.length + refused.length).toBe(n);
  return accepted.length;
}

describe('a script: bursts from one account', () => {
  it('120 comments at once → at most COMMENT_RATE_LIMIT posted, the rest 429', async () => {
    f.at(null);
    const topic = await f.topic(admin);
    const accepted = await burst(
      120,
      (i) => gql(author.token, POST_COMMENT, { t: topic.id36, m: `burst ${i}` }),
      'COMMENT_RATE_LIMITED',
      defaults.comment.windowSeconds,
    );
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(defaults.comment.limit);
    const stored = await s.agora.db.conn.collection('comments').countDocuments({ authorId: author.id });
    expect(stored).toBe(accepted);
  });

  it('120 topics at once → at most TOPIC_RATE_LIMIT posted', async () => {
    await f.group('test');
    const accepted = await burst(
      120,
      (i) => gql(author.token, POST_TOPIC, { i: { group: 'test', title: `Burst topic ${i}`, markdown: 'x' } }),
      'TOPIC_RATE_LIMITED',
      defaults.topic.windowSeconds,
    );
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(defaults.topic.limit);
  });

  it('votes and labels on 200 comments at once → at most their limits', async () => {
    const topic = await f.topic(admin);
    const comments: CommentView[] = [];
    for (let i = 0; i < 200; i++) comments.push(await f.comment(admin, topic, { markdown: `c${i}` }));
    const voter = await f.user('voter');
    const votes = await burst(
      200,
      (i) => gql(voter.token, VOTE_COMMENT, { id: comments[i]!.id36 }),
      'VOTE_RATE_LIMITED',
      defaults.vote.windowSeconds,
    );
    expect(votes).toBeGreaterThan(0);
    expect(votes).toBeLessThanOrEqual(defaults.vote.limit);
    const labels = await burst(
      200,
      (i) => gql(voter.token, LABEL_COMMENT, { id: comments[i]!.id36 }),
      'LABEL_RATE_LIMITED',
      defaults.label.windowSeconds,
    );
    expect(labels).toBeGreaterThan(0);
    expect(labels).toBeLessThanOrEqual(defaults.label.limit);
  });

  it('admins are not limited (moderation)', async () => {
    const topic = await f.topic(admin);
    const accepted = await burst(
      80,
      (i) => gql(admin.token, POST_COMMENT, { t: topic.id36, m: `notice ${i}` }),
      'COMMENT_RATE_LIMITED',
      defaults.comment.windowSeconds,
    );
    expect(accepted).toBe(80);
  });
});

describe('a person: never refused at a human pace', () => {
  it('two hours of steady writing (the domain clock replays it)', async () => {
    const person = await f.user('person');
    const start = Date.parse('2026-05-01T10:00:00.000Z');
    const at = (seconds: number) => f.at(new Date(start + seconds * 1000));
    const others = await f.topic(admin);
    const targets: CommentView[] = [];
    for (let i = 0; i < 60; i++) targets.push(await f.comment(admin, others, { markdown: `target ${i}` }));
    let topics = 0;
    // A topic every 10 minutes, a comment every 30 s, a vote and its undoing every 15 s, a label every 2 minutes.
    for (let second = 0; second < 2 * 3600; second += 15) {
      at(second);
      if (second % 600 === 0) {
        await f.topic(person, { title: `Steady ${topics++}` });
      }
      if (second % 30 === 0) await f.comment(person, others, { markdown: `steady ${second}` });
      const target = targets[(second / 15) % targets.length]!;
      await s.agora.services.discussion.votes.vote(person.actor, 'comment', target.id36);
      await s.agora.services.discussion.votes.unvote(person.actor, 'comment', target.id36);
      if (second % 120 === 0)
        await s.agora.services.discussion.labels.label(person.actor, targets[second / 120]!.id36, 'joke');
    }
    expect(topics).toBe(12);
  });
});
