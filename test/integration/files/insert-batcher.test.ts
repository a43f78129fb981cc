/**
 * Group commit of file metadata (src/files/insert-batcher.ts) against the real database:
 * concurrent inserts share batches, and each caller gets its own outcome — inserted, name taken
 * (also between two documents of one batch), or an error of its own. With a commit delay, a batch
 * waits for the writers still in flight, goes as soon as all of them joined, and a lone writer
 * never waits.
 */
import { InsertBatcher } from '../../../src/files/insert-batcher';
import { sleep } from '../../helpers/embedded';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

type Doc = { _id: string; filename: string; n: number };

it('inserts concurrent documents in batches; of documents sharing a key exactly one wins', async () => {
  const coll = s.agora.db.conn.collection<Doc>('batcher_test');
  await coll.createIndex({ filename: 1 }, { unique: true });
  const batcher = new InsertBatcher<Doc>(() => coll as never);
  await coll.insertOne({ _id: 'taken', filename: 'taken', n: -1 });
  const names = [...Array.from({ length: 30 }, (_, i) => `f${i}`), 'dup', 'dup', 'dup', 'taken', 'dup'];
  const { result, commands } = await s.countCommands(() =>
    Promise.all(names.map((name, n) => batcher.insert({ _id: name, filename: name, n }))),
  );
  expect(result.slice(0, 30)).toEqual(Array(30).fill(true));
  expect(result.slice(30).filter(Boolean)).toHaveLength(1); // one 'dup' of four, never 'taken'
  expect(result[33]).toBe(false);
  expect(await coll.countDocuments()).toBe(32);
  // The first insert goes alone, the others wait for it and go together.
  expect(commands).toBeLessThanOrEqual(3);
  // A name taken only on the unique secondary key is refused too.
  expect(await batcher.insert({ _id: 'other-id', filename: 'f1', n: 99 })).toBe(false);
});

it('an error other than a taken key reaches its caller', async () => {
  const coll = s.agora.db.conn.collection<Doc>('batcher_test_2');
  const batcher = new InsertBatcher<Doc>(() => coll as never);
  // An _id that is not a valid key (an array) fails as a whole, alone or in a batch.
  const bad = { _id: ['x'] as unknown as string, filename: 'bad', n: 0 };
  const results = await Promise.allSettled([
    batcher.insert({ _id: 'ok1', filename: 'ok1', n: 1 }),
    batcher.insert(bad),
    batcher.insert({ _id: 'ok2', filename: 'ok2', n: 2 }),
  ]);
  expect(results[0]).toEqual({ status: 'fulfilled', value: true });
  expect(results[1]!.status).toBe('rejected');
  expect(results[2]).toEqual({ status: 'fulfilled', value: true });
});

describe('with a commit delay', () => {
  const doc = (name: string, n = 0): Doc => ({ _id: name, filename: name, n });
  const timed = async <T>(fn: () => Promise<T>) => {
    const t0 = performance.now();
    const result = await fn();
    return { result, ms: performance.now() - t0 };
  };

  it('a batch waits for the writers in flight and goes once all of them joined: one insert', async () => {
    const coll = s.agora.db.conn.collection<Doc>('batcher_linger_1');
    // Three writers in flight, the last one joining 150 ms after the first; the delay (60 s) is
    // never reached: the batch goes when the third joins.
    const batcher = new InsertBatcher<Doc>(() => coll as never, {}, { ms: 60_000, writersInFlight: () => 3 });
    const { result, commands } = await s.countCommands(() =>
      timed(() =>
        Promise.all([
          batcher.insert(doc('a')),
          sleep(75).then(() => batcher.insert(doc('b'))),
          sleep(150).then(() => batcher.insert(doc('c'))),
        ]),
      ),
    );
    expect(result.result).toEqual([true, true, true]);
    expect(commands).toBe(1);
    expect(result.ms).toBeGreaterThanOrEqual(140);
    expect(result.ms).toBeLessThan(30_000);
    expect(await coll.countDocuments()).toBe(3);
  });

  it('a lone writer never waits', async () => {
    const coll = s.agora.db.conn.collection<Doc>('batcher_linger_2');
    const batcher = new InsertBatcher<Doc>(() => coll as never, {}, { ms: 60_000, writersInFlight: () => 1 });
    for (let i = 0; i < 3; i++) {
      const { ms, result } = await timed(() => batcher.insert(doc(`lone${i}`)));
      expect(result).toBe(true);
      expect(ms).toBeLessThan(30_000);
    }
    expect(await coll.countDocuments()).toBe(3);
  });

  it('writers that never insert hold a batch for the delay at most', async () => {
    const coll = s.agora.db.conn.collection<Doc>('batcher_linger_3');
    const batcher = new InsertBatcher<Doc>(() => coll as never, {}, { ms: 400, writersInFlight: () => 5 });
    const { ms, result } = await timed(() => batcher.insert(doc('waited')));
    expect(result).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(390);
    expect(ms).toBeLessThan(30_000);
  });
});
