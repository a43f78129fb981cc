/**
 * Single-document writes are atomic, as on MongoDB: the embedded FerretDB holds a writer lock per
 * collection from each write's read to its write (third_party/ferretdb, patch 0006), where FerretDB
 * 1.24 read, computed and wrote back with nothing in between. And an update command of more
 * statements than FerretDB's connection pool (100) completes (patch 0005): it used to hang the server.
 * These hold on MongoDB too, so they run on every database.
 */
import crypto from 'node:crypto';
import mongoose from 'mongoose';
import { withDatabaseName } from '../../src/server';
import { testDatabase } from '../helpers/database';

const dbName = `agora_atomic_${crypto.randomBytes(5).toString('hex')}`;
let conn: mongoose.Connection;
let seq = 0;

/** A fresh collection per test, holding `docs`. */
async function collection(docs: Record<string, unknown>[]) {
  seq += 1;
  const c = conn.collection(`atomic_${seq}`);
  if (docs.length) await c.insertMany(docs as never[]);
  return c;
}

const parallel = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

beforeAll(async () => {
  conn = await mongoose
    .createConnection(withDatabaseName(process.env.MONGODB_URI!, dbName), { maxPoolSize: 60 })
    .asPromise();
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

describe(`on ${testDatabase().name}`, () => {
  it('50 parallel $inc of one document add up to 50', async () => {
    const c = await collection([{ _id: 1, n: 0 }]);
    await parallel(50, () => c.updateOne({ _id: 1 } as never, { $inc: { n: 1 } }));
    expect(await c.findOne({ _id: 1 } as never)).toEqual({ _id: 1, n: 50 });
  });

  it('20 parallel updateMany $inc reach every document 20 times, beside 20 updateOne $inc of one of them', async () => {
    const c = await collection([
      { _id: 1, n: 0 },
      { _id: 2, n: 0 },
      { _id: 3, n: 0 },
    ]);
    await parallel<unknown>(40, (i) =>
      i % 2 ? c.updateMany({}, { $inc: { n: 1 } }) : c.updateOne({ _id: 2 } as never, { $inc: { n: 1 } }),
    );
    expect(await c.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, n: 20 },
      { _id: 2, n: 40 },
      { _id: 3, n: 20 },
    ]);
  });

  it('20 parallel $sets of different fields of one document all stay', async () => {
    const c = await collection([{ _id: 1 }]);
    await parallel(20, (i) => c.updateOne({ _id: 1 } as never, { $set: { [`f${i}`]: i } }));
    const doc = await c.findOne({ _id: 1 } as never);
    expect(doc).toEqual({ _id: 1, ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, i])) });
  });

  it('of 30 parallel conditional updates ({_id, version: 0} -> version 1) exactly one wins', async () => {
    const c = await collection([{ _id: 1, version: 0, winners: 0 }]);
    const results = await parallel(30, () =>
      c.updateOne({ _id: 1, version: 0 } as never, { $set: { version: 1 }, $inc: { winners: 1 } }),
    );
    expect(results.reduce((sum, r) => sum + r.modifiedCount, 0)).toBe(1);
    expect(await c.findOne({ _id: 1 } as never)).toEqual({ _id: 1, version: 1, winners: 1 });
  });

  it('parallel findOneAndUpdate return before and after images that fit one sequence of writes', async () => {
    const c = await collection([{ _id: 1, n: 0 }]);
    const seen = await parallel(40, async (i) => {
      const after = i % 2 === 0;
      const doc = await c.findOneAndUpdate(
        { _id: 1 } as never,
        { $inc: { n: 1 } },
        { returnDocument: after ? 'after' : 'before' },
      );
      return (doc!.n as number) - (after ? 1 : 0); // the value this write started from
    });
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect((await c.findOne({ _id: 1 } as never))!.n).toBe(40);
  });

  it('a delete run while documents change deletes only what matches when it deletes', async () => {
    const c = await collection(Array.from({ length: 40 }, (_, i) => ({ _id: i, n: 0 })));
    await parallel<unknown>(41, (i) =>
      i === 40 ? c.deleteMany({ n: 0 }) : c.updateOne({ _id: i } as never, { $set: { n: 1 } }),
    );
    for (const doc of await c.find().toArray()) expect(doc.n).toBe(1);
  });

  it('an update command of 1,000 statements completes, and the server answers afterwards', async () => {
    const c = await collection(Array.from({ length: 1000 }, (_, i) => ({ _id: i, n: 0 })));
    const updates = Array.from({ length: 1000 }, (_, i) => ({ q: { _id: i }, u: { $inc: { n: 1 } } }));
    const res = (await conn.db!.command({ update: c.collectionName, updates })) as { n: number; nModified: number };
    expect(res).toMatchObject({ n: 1000, nModified: 1000 });
    expect(await c.countDocuments({ n: 1 })).toBe(1000);
  }, 120_000);

  it('a bulkWrite of 1,000 updateOne completes, and the server answers afterwards', async () => {
    const c = await collection(Array.from({ length: 1000 }, (_, i) => ({ _id: i, n: 0 })));
    const res = await c.bulkWrite(
      Array.from({ length: 1000 }, (_, i) => ({
        updateOne: { filter: { _id: i } as never, update: { $set: { n: i } } },
      })),
    );
    expect(res.modifiedCount).toBe(999); // _id 0 already had n: 0
    expect((await c.find().toArray()).every((d) => d.n === d._id)).toBe(true);
    expect(await c.countDocuments()).toBe(1000);
  }, 120_000);
});
