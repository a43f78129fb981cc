/**
 * The embedded FerretDB is built with Agora's filter pushdown (third_party/ferretdb/, patch 0001 and
 * agora_pushdown.go), which narrows in SQLite what FerretDB then filters exactly. It may never drop a match. Each
 * filter here is
 * run twice: as is (pushed down), and wrapped so that nothing is pushed down (`unpushed`: every
 * document is read and filtered by FerretDB's own matcher). Both must return the same documents.
 * On MongoDB the comparison still runs (it shows the filters mean what the test says), but the
 * checks of FerretDB's explain output are skipped there.
 */
import crypto from 'node:crypto';
import mongoose from 'mongoose';
import { withDatabaseName } from '../../src/server';
import { itOn, testDatabase } from '../helpers/database';

const { Double, Int32, Long, ObjectId } = mongoose.mongo;
const dbName = `agora_pushdown_${crypto.randomBytes(5).toString('hex')}`;
let conn: mongoose.Connection;
const oid = new ObjectId('65a1b2c3d4e5f60718293a4b');

const docs: Record<string, unknown>[] = [
  { _id: 1, f: 5 },
  { _id: 2, f: new Double(5) },
  { _id: 3, f: new Long(5) },
  { _id: 4, f: [5, 6] },
  { _id: 5, f: 2 },
  { _id: 6, f: '5' },
  { _id: 7, f: null },
  { _id: 8 },
  { _id: 9, f: { a: 5 } },
  { _id: 10, f: 5.5 },
  { _id: 11, f: new Double(-0) },
  { _id: 12, f: 0 },
  { _id: 13, f: 'a<b&c>' },
  { _id: 14, f: 'café' },
  { _id: 15, f: 'say "hi"\\' },
  { _id: 16, f: true },
  { _id: 17, f: false },
  { _id: 18, f: oid },
  { _id: 19, f: Long.fromString('9007199254740993') },
  { _id: 20, f: 'plain text' },
  { _id: 21, f: ['plain text', 'other'] },
  { _id: 22, f: new Date('2026-01-01T00:00:00Z') },
  { _id: 23, f: 1e21 },
  { _id: 24, f: new Int32(-7), g: 'x' },
  { _id: 25, f: -7, g: 'y' },
  { _id: '25', f: 'string id' },
  { _id: oid, f: 'object id' },
  { _id: 'a<b', f: 'escaped id' },
  // A date whose stored JSON text is that of the number 26 (FerretDB's unique _id index is on that
  // text, so no document can have the _id 26 beside it): a lookup by _id, which narrows on that text
  // alone, must not answer it for the number.
  { _id: new Date(26), f: 'date id' },
];

const filters: Record<string, unknown>[] = [
  { f: 5 },
  { f: new Double(5) },
  { f: new Long(5) },
  { f: 6 },
  { f: '5' },
  { f: 5.5 },
  { f: 0 },
  { f: new Double(-0) },
  { f: 'a<b&c>' },
  { f: 'café' },
  { f: 'say "hi"\\' },
  { f: 'plain text' },
  { f: 'other' },
  { f: true },
  { f: false },
  { f: oid },
  { f: Long.fromString('9007199254740993') },
  { f: 1e21 },
  { f: -7 },
  { f: -7, g: 'y' },
  { f: { $eq: 5 } },
  { f: { $in: [5, 'plain text', true] } },
  { f: { $in: [] } },
  { f: { $in: [null] } },
  { f: null },
  { f: [5, 6] },
  { f: { a: 5 } },
  { f: new Date('2026-01-01T00:00:00Z') },
  { _id: 1 },
  { _id: 25 },
  { _id: '25' },
  { _id: oid },
  { _id: 'a<b' },
  { _id: { $in: [1, 2, '25', oid] } },
  { _id: 5, f: 2 },
  { _id: 26 },
  { _id: new Date(26) },
  { missing: 5 },
  { 'f.a': 5 },
  { $and: [{ f: 5 }, { _id: { $in: [1, 2, 4] } }] },
  { $and: [{ f: 'plain text' }, { $and: [{ _id: 21 }] }] },
  { $and: [{ f: 5 }, { $or: [{ _id: 1 }, { _id: 25 }] }] },
  { g: 'y', $and: [{ f: -7 }] },
];

beforeAll(async () => {
  conn = await mongoose.createConnection(withDatabaseName(process.env.MONGODB_URI!, dbName)).asPromise();
  const c = conn.collection('pushdown');
  await c.createIndex({ f: 1 });
  await c.createIndex({ g: 1 });
  await c.insertMany(docs as never[]);
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

const database = testDatabase();
const itOnFerretdb = itOn('ferretdb', "checks how Agora's FerretDB build answers");
// AGORA_FERRETDB_PUSHDOWN=off (passed on to FerretDB by the launcher) turns the pushdown off, to show
// that no answer depends on it; then only the check that it is used is skipped.
const pushdownOff = process.env.AGORA_FERRETDB_PUSHDOWN === 'off';
const itPushedDown = pushdownOff
  ? (name: string, fn: jest.ProvidesCallback) => it.skip(`${name} (skipped: AGORA_FERRETDB_PUSHDOWN=off)`, fn)
  : itOnFerretdb;

/**
 * The filter wrapped so that the build pushes nothing down: `$exists` is never translated, and an `$or`
 * with an untranslated branch gives no term (a plain one-branch `$or` is translated since patch 0007).
 */
const unpushed = (filter: Record<string, unknown>) => ({ $or: [{ $and: [filter, { zz: { $exists: false } }] }] });

describe(`on ${database.name}`, () => {
  const ids = async (filter: Record<string, unknown>) =>
    (
      await conn
        .collection('pushdown')
        .find(filter, { projection: { _id: 1 } })
        .toArray()
    )
      .map((d) => String(d._id))
      .sort();

  it.each(filters.map((f) => [JSON.stringify(f), f]))(
    '%s: the same documents with and without pushdown',
    async (_name, filter) => {
      const pushed = await ids(filter as Record<string, unknown>);
      const reference = await ids(unpushed(filter as Record<string, unknown>));
      expect(pushed).toEqual(reference);
    },
  );

  it('the matcher itself finds what MongoDB would (spot checks, so the comparison is not vacuous)', async () => {
    expect(await ids({ f: 5 })).toEqual(['1', '2', '3', '4']);
    expect(await ids({ f: 'plain text' })).toEqual(['20', '21']);
    expect(await ids({ f: 'a<b&c>' })).toEqual(['13']);
    expect(await ids({ _id: oid })).toEqual([String(oid)]);
    expect(await ids({ _id: 25 })).toEqual(['25']);
    expect(await ids({ _id: 26 })).toEqual([]);
    expect(await ids({ _id: { $in: [1, 26] } })).toEqual(['1']);
    expect(await ids({ _id: new Date(26) })).toEqual([String(new Date(26))]);
  });

  it('updates and deletes by _id (the indexed _id expression) reach the document', async () => {
    const c = conn.collection('pushdown');
    await c.updateOne({ _id: 'a<b' } as never, { $set: { touched: 1 } });
    await c.updateOne({ _id: 25 } as never, { $set: { touched: 2 } });
    await c.updateMany({ _id: 26 } as never, { $set: { touched: 3 } });
    expect(await ids({ touched: { $exists: true } })).toEqual(['25', 'a<b']);
    expect(await c.countDocuments({ _id: 26 } as never)).toBe(0);
    expect((await c.deleteMany({ _id: { $in: [26] } } as never)).deletedCount).toBe(0);
    await c.deleteOne({ _id: oid } as never);
    expect(await ids({ _id: oid })).toEqual([]);
  });

  (pushdownOff ? itOnFerretdb : it.skip)('with AGORA_FERRETDB_PUSHDOWN=off the filter is not pushed down', async () => {
    const explained = (await conn.db!.command({ explain: { find: 'pushdown', filter: { f: 5 } } })) as {
      filterPushdown?: boolean;
    };
    expect(explained.filterPushdown).toBe(false);
  });

  itPushedDown('the filter really is pushed down and answered from the index', async () => {
    // `g` holds only sortable scalars, so its index serves the equality (patch 0007's expressions).
    const explained = (await conn.db!.command({ explain: { find: 'pushdown', filter: { g: 'y' } } })) as {
      filterPushdown?: boolean;
      queryPlanner?: { Plan?: string[] };
    };
    expect(explained.filterPushdown).toBe(true);
    expect(explained.queryPlanner?.Plan?.join('\n')).toMatch(/USING INDEX pushdown_[0-9a-f]+_g_1/);
    // `f` holds arrays and documents: still narrowed in SQL (value or array element), but not from the index.
    const arrays = (await conn.db!.command({ explain: { find: 'pushdown', filter: { f: 'x' } } })) as {
      filterPushdown?: boolean;
    };
    expect(arrays.filterPushdown).toBe(true);
  });

  it('a double -0 made by an update still matches 0', async () => {
    const c = conn.collection('pushdown');
    await c.insertOne({ _id: 'negative zero', f: new Double(0.5) } as never);
    await c.updateOne({ _id: 'negative zero' } as never, { $mul: { f: -0 } });
    expect(await ids({ f: 0 })).toEqual(await ids(unpushed({ f: 0 })));
    expect(await ids({ f: 0 })).toContain('negative zero');
    await c.deleteOne({ _id: 'negative zero' } as never);
  });
});
