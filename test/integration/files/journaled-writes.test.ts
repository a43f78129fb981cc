/**
 * Every write of file metadata asks for the journal (writeConcern j: true), so an answered upload,
 * overwrite or delete is on disk before its answer on MongoDB and on the embedded database alike
 * (src/files/file.repository.ts, patch 0016). The discussion's writes do not: MongoDB's default.
 */
import { client, JSON_ACCEPT, request } from './helpers';
import { watchingCommands } from '../../helpers/exchanges';
import { Factory } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

type Seen = { name: string; collection: unknown; journal: unknown };

/** Each command fn's work sends: its name, collection and writeConcern.j. */
async function commandsOf(fn: () => Promise<void>): Promise<Seen[]> {
  const seen: Seen[] = [];
  await watchingCommands(s, fn, (name, c) => {
    seen.push({ name, collection: c[name], journal: (c.writeConcern as { j?: unknown } | undefined)?.j });
  });
  return seen;
}

it('an upload, an overwrite and a delete write their metadata with j: true', async () => {
  const c = client(s);
  const headers = { ...JSON_ACCEPT, 'files-delete-key': 'dk1' };
  const seen = await commandsOf(async () => {
    expect((await c.put('/upload/journaled.txt', 'one', headers)).status).toBe(200);
    expect((await c.put('/upload/journaled.txt', 'two', headers)).status).toBe(200);
    expect((await request(s.url, 'DELETE', '/journaled.txt', { headers })).status).toBe(200);
  });
  const writes = seen.filter((w) => w.collection === 'files' && ['insert', 'update', 'delete'].includes(w.name));
  // The overwrite first tries to claim the name (an insert refused as a duplicate), then updates.
  expect(new Set(writes.map((w) => w.name))).toEqual(new Set(['insert', 'update', 'delete']));
  for (const w of writes) expect(w.journal).toBe(true);
});

it("a discussion's writes are acknowledged as MongoDB acknowledges them by default (no j)", async () => {
  const f = new Factory(s);
  const [author, voter] = [await f.user(), await f.user()];
  const topic = await f.topic(author);
  const seen = await commandsOf(async () => {
    await f.comment(author, topic);
    await f.voteTopic(voter, topic);
  });
  const writes = seen.filter((w) => ['insert', 'update', 'findAndModify'].includes(w.name));
  // At least the comment, the topic's counts, the mark and the live events.
  expect(writes.map((w) => w.collection)).toEqual(expect.arrayContaining(['comments', 'topics', 'marks', 'events']));
  for (const w of writes) expect(w.journal).toBeUndefined();
});
