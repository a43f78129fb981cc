/**
 * The hot writes go through the driver's collection instead of mongoose (collectionOf, src/db/connection.ts):
 * what they store must be exactly what the mongoose statements they replaced stored — every field,
 * its type and its place (EJSON canonical, key order included). Each case writes one document
 * through the service and its twin through the old mongoose statement, then compares the two.
 */
import mongoose from 'mongoose';
import { discussionModels } from '../../../src/discussion/models';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

const { EJSON } = mongoose.mongo.BSON;

jest.setTimeout(60_000);

let s: TestServer;
let f: Factory;
let author: TestUser;
let reader: TestUser;
let twin: TestUser;
let m: ReturnType<typeof discussionModels>;

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s);
  m = discussionModels(s.agora.db);
  author = await f.user('storedauthor');
  reader = await f.user('storedreader');
  twin = await f.user('storedtwin');
});
afterAll(async () => s?.close());

/** A stored document as canonical EJSON without the fields that name it, keys in stored order. */
async function stored(collection: string, filter: Record<string, unknown>, omit: string[]): Promise<string> {
  const doc = await s.agora.db.conn.collection(collection).findOne(filter);
  expect(doc).not.toBeNull();
  const kept = Object.fromEntries(Object.entries(doc!).filter(([k]) => !omit.includes(k)));
  return EJSON.stringify(kept, { relaxed: false });
}

/** The reader's mark on topic `id` and the twin's are stored alike (but for their ids). */
async function expectTwinMarks(id: number): Promise<void> {
  const omit = ['_id', 'userId'];
  expect(await stored('marks', { userId: reader.id, postId: id }, omit)).toBe(
    await stored('marks', { userId: twin.id, postId: id }, omit),
  );
}

it('a first vote stores the mark mongoose stored (its other flags at their defaults)', async () => {
  const topic = await f.topic(author, { group: 'stored' });
  const id = parseInt(topic.id36, 36);
  await f.d.votes.vote(reader.actor, 'topic', topic.id36);
  const mine = await m.Mark.findOne({ userId: reader.id, kind: 'topic', postId: id }).lean();
  // The statement the repository used to send, for the twin user at the same instant.
  await m.Mark.findOneAndUpdate(
    { userId: twin.id, kind: 'topic', postId: id, voted: { $ne: true } },
    { $set: { voted: true, votedAt: mine!.votedAt, topicId: id } },
    { upsert: true, setDefaultsOnInsert: true, returnDocument: 'after' },
  ).exec();
  await expectTwinMarks(id);
});

it("a first visit stores the mark mongoose stored; a later bookmark changes only the bookmark's fields", async () => {
  const topic = await f.topic(author, { group: 'stored' });
  const id = parseInt(topic.id36, 36);
  await f.d.visits.record(reader.actor, topic.id36);
  const mine = await m.Mark.findOne({ userId: reader.id, kind: 'topic', postId: id }).lean();
  await m.Mark.updateOne(
    { userId: twin.id, kind: 'topic', postId: id },
    { $set: { visitAt: mine!.visitAt, visitCommentCount: mine!.visitCommentCount, topicId: id } },
    { upsert: true, setDefaultsOnInsert: true },
  ).exec();
  await expectTwinMarks(id);

  await f.d.bookmarks.bookmark(reader.actor, 'topic', topic.id36);
  const bookmarked = await m.Mark.findOne({ userId: reader.id, kind: 'topic', postId: id }).lean();
  await m.Mark.findOneAndUpdate(
    { userId: twin.id, kind: 'topic', postId: id, bookmarked: { $ne: true } },
    { $set: { bookmarked: true, bookmarkedAt: bookmarked!.bookmarkedAt, topicId: id } },
    { upsert: true, setDefaultsOnInsert: true, returnDocument: 'after' },
  ).exec();
  await expectTwinMarks(id);
});

it('a posted comment is stored as mongoose created it (_id first, every field in schema order)', async () => {
  const topic = await f.topic(author, { group: 'stored' });
  const posted = await f.comment(reader, topic, { markdown: 'Stored *as* before & "quoted" 😀' });
  const id = parseInt(posted.id36, 36);
  const mine = await m.Comment.findById(id).lean();
  const { _id, ...rest } = mine!;
  expect(_id).toBe(id);
  const twinId = 900_000_000 + id;
  await m.Comment.create({ ...rest, _id: twinId });
  const mineRaw = await s.agora.db.conn.collection('comments').findOne({ _id: id as never });
  expect(Object.keys(mineRaw!)[0]).toBe('_id');
  expect(await stored('comments', { _id: id }, ['_id'])).toBe(await stored('comments', { _id: twinId }, ['_id']));
  await m.Comment.deleteOne({ _id: twinId });
});

it("a vote's and a comment's counts move as mongoose moved them (same document after the write)", async () => {
  const topic = await f.topic(author, { group: 'stored' });
  const id = parseInt(topic.id36, 36);
  const comment = await f.comment(author, topic);
  await f.d.votes.vote(reader.actor, 'comment', comment.id36);
  await f.d.votes.vote(reader.actor, 'topic', topic.id36);
  const t = await m.Topic.findById(id).lean();
  expect([t!.voteCount, t!.commentCount]).toEqual([1, 1]);
  const c = await m.Comment.findById(parseInt(comment.id36, 36)).lean();
  expect(c!.voteCount).toBe(1);
  // Types stay those of the schema: integers as int32, dates as dates.
  const raw = await s.agora.db.conn.collection('topics').findOne({ _id: id as never });
  const canonical = JSON.parse(EJSON.stringify(raw, { relaxed: false }));
  expect(canonical.voteCount).toEqual({ $numberInt: '1' });
  expect(canonical.commentCount).toEqual({ $numberInt: '1' });
  expect(Object.keys(canonical.lastActivityAt)).toEqual(['$date']);
});
