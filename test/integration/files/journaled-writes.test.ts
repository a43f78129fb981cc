/**
 * Every write of file metadata asks for the journal (writeConcern j: true), so an answered upload,
 * overwrite or delete is on disk before its answer on MongoDB and on the embedded database alike
 * (src/files/file.repository.ts, patch 0016). The discussion's writes do not: MongoDB's default.
 */
import { meterCommands, plainCommand } from '../../../src/db/command-meter';
import { client, JSON_ACCEPT, request } from './helpers';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

type Seen = { name: string; collection: unknown; journal: unknown };

async function commandsOf(fn: () => Promise<void>): Promise<Seen[]> {
  const seen: Seen[] = [];
  const stop = meterCommands(s.agora.db.conn.getClient(), {
    started(name, command) {
      const c = plainCommand(command);
      const wc = c.writeConcern as { j?: unknown } | undefined;
      seen.push({ name, collection: c[name], journal: wc?.j });
    },
  });
  try {
    await fn();
    await s.agora.eventsWritten();
  } finally {
    stop();
  }
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

it('a discussion write is acknowledged as MongoDB acknowledges it by default (no j)', async () => {
  const seen = await commandsOf(async () => {
    await s.agora.db.conn.collection('journal_probe').insertOne({ _id: 1 } as never);
  });
  const insert = seen.find((w) => w.name === 'insert' && w.collection === 'journal_probe');
  expect(insert).toBeDefined();
  expect(insert!.journal).toBeUndefined();
});
