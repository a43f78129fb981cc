/**
 * Sorted reads from indexes (third_party/ferretdb/, patch 0007 and agora_sort.go): a find whose sort
 * keys are top-level fields is sorted by SQLite on the collection's index, and limited there when the
 * whole filter is translated exactly. It must return the same documents in the same order as
 * FerretDB's own path. Each random query runs twice: as a find (pushed down where the build can), and
 * as an aggregation whose filter is wrapped in a one-branch `$or` with a condition the build never
 * translates (so every document is read, filtered and sorted by FerretDB's own code). The corpora mix
 * types in one field: numbers of every kind (-0, integers beyond 2^53), strings with escapes and
 * non-ASCII, dates, booleans, null, missing fields, ObjectIds and, in some corpora, arrays and documents.
 * Sorts end with _id, so that every order is total (FerretDB's own sort is not stable).
 * On MongoDB the comparison still runs; the explain checks are FerretDB's.
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import mongoose from 'mongoose';
import { withDatabaseName } from '../../src/server';
import { itOn, testDatabase } from '../helpers/database';

const { Double, Int32, Long, ObjectId } = mongoose.mongo;
const dbName = `agora_sort_${crypto.randomBytes(5).toString('hex')}`;
let conn: mongoose.Connection;

const scalars: unknown[] = [
  new Int32(-3),
  new Int32(0),
  new Int32(7),
  7,
  new Double(-0),
  new Double(0.5),
  new Double(7),
  -2.5,
  1e21,
  Long.fromString('9007199254740993'),
  Long.fromString('9007199254740992'),
  Long.fromString('-9007199254740995'),
  '',
  'a',
  'a b',
  'ab',
  'a!',
  'é',
  'été',
  'say "hi"\\',
  '<&>',
  '\u0001x',
  'z',
  '日本',
  '😀',
  new Date('2026-01-01T00:00:00Z'),
  new Date(0),
  new Date(-1000),
  true,
  false,
  null,
  new ObjectId('65a1b2c3d4e5f60718293a4b'),
  new ObjectId('000000000000000000000001'),
];
const unsortable: unknown[] = [[1, 'x'], [], ['a b'], { a: 1 }];

const scalar = fc.constantFrom(...scalars);
const DOCS = 80;

/** A corpus: documents with a mixed field `a`, a boolean `k`, a small number `n`; `a` sometimes missing. */
function corpus(seed: number, withArrays: boolean): Record<string, unknown>[] {
  const pool = withArrays ? [...scalars, ...unsortable] : scalars;
  // mulberry32: a small seeded generator, so that a failing corpus can be rebuilt.
  let x = seed >>> 0;
  const next = (m: number) => {
    x = (x + 0x6d2b79f5) >>> 0;
    let t = Math.imul(x ^ (x >>> 15), x | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % m;
  };
  return Array.from({ length: DOCS }, (_, i) => {
    const doc: Record<string, unknown> = { _id: i, k: next(2) === 0, n: next(4) };
    if (next(8) > 0) doc.a = pool[next(pool.length)];
    return doc;
  });
}

const filterArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constant({}),
  fc.boolean().map((k) => ({ k })),
  scalar.map((v) => ({ a: v })),
  fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), scalar).map(([op, v]) => ({ a: { [op]: v } })),
  fc.array(scalar, { minLength: 1, maxLength: 3 }).map((vs) => ({ a: { $in: vs } })),
  fc.tuple(fc.boolean(), scalar, fc.integer({ min: 0, max: DOCS })).map(([k, v, id]) => ({
    $and: [{ k }, { $or: [{ a: { $lt: v } }, { a: v, _id: { $lt: id } }] }],
  })),
  fc.integer({ min: 0, max: 3 }).map((n) => ({ n: { $in: [n, null] } })),
  fc.integer({ min: 0, max: DOCS }).map((id) => ({ _id: { $nin: [id] }, k: true })),
);
const sortArb = fc
  .tuple(fc.constantFrom('a', 'n', 'k', 'missing'), fc.constantFrom(1, -1), fc.constantFrom(1, -1))
  .map(([f, d1, d2]) => ({ [f]: d1, _id: d2 }) as Record<string, 1 | -1>);

const collections = ['scalars0', 'scalars1', 'mixed0', 'mixed1'];

beforeAll(async () => {
  conn = await mongoose.createConnection(withDatabaseName(process.env.MONGODB_URI!, dbName)).asPromise();
  for (const [i, name] of collections.entries()) {
    const c = conn.collection(name);
    // The shapes Agora declares (src/discussion/models.ts): an equality prefix, a sort key, _id.
    await c.createIndex({ k: 1, a: -1, _id: -1 });
    await c.createIndex({ a: 1 });
    await c.createIndex({ n: 1, _id: 1 });
    const docs = corpus(i + 1, name.startsWith('mixed'));
    if (name.startsWith('mixed')) expect(docs.some((d) => Array.isArray(d.a))).toBe(true);
    await c.insertMany(docs as never[]);
  }
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

const database = testDatabase();
const itOnFerretdb = itOn('ferretdb', "checks how Agora's FerretDB build answers");
const pushdownOff = process.env.AGORA_FERRETDB_PUSHDOWN === 'off';

interface Query {
  collection: string;
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
}

async function pushed(q: Query): Promise<unknown[]> {
  const options = { sort: q.sort, skip: q.skip, limit: q.limit };
  const docs = await conn.collection(q.collection).find(q.filter, options).toArray();
  return docs.map((d) => d._id);
}

async function reference(q: Query): Promise<unknown[]> {
  // `zz: {$exists: false}` is never translated, so the one-branch $or is not pushed down at all.
  const pipeline: Record<string, unknown>[] = [
    { $match: { $or: [{ $and: [q.filter, { zz: { $exists: false } }] }] } },
    { $sort: q.sort },
  ];
  if (q.skip > 0) pipeline.push({ $skip: q.skip });
  if (q.limit > 0) pipeline.push({ $limit: q.limit });
  const docs = await conn.collection(q.collection).aggregate(pipeline).toArray();
  return docs.map((d) => d._id);
}

describe(`on ${database.name}`, () => {
  const differential =
    "random filters, sorts, skips and limits: the same documents in the same order as FerretDB's " + 'own path';
  it(
    differential,
    async () => {
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...collections),
          filterArb,
          sortArb,
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: 0, max: 25 }),
          async (collection, filter, sort, skip, limit) => {
            const q = { collection, filter, sort, skip, limit };
            const got = await pushed(q);
            expect(got).toEqual(await reference(q));
            if (got.length > 0) nonEmpty += 1;
          },
        ),
        { numRuns: 300, interruptAfterTimeLimit: 40_000, seed: 15 },
      );
      // Not vacuous: most queries found something.
      expect(nonEmpty).toBeGreaterThan(50);
    },
    60_000,
  );

  it('the reference sorts as MongoDB does (spot checks)', async () => {
    const q = (sort: Record<string, 1 | -1>, filter: Record<string, unknown>) =>
      pushed({ collection: 'scalars0', filter, sort, skip: 0, limit: 0 });
    const docs = corpus(1, false);
    const idsWhere = (p: (a: unknown) => boolean) => docs.filter((d) => 'a' in d && p(d.a)).map((d) => d._id);
    // Numbers sort as numbers, not as text: 7 after -3, and 1e21 last among them.
    const numbers = await q({ a: 1, _id: 1 }, { a: { $gte: -1e30 } });
    const isNumber = (a: unknown) =>
      typeof a === 'number' || a instanceof Int32 || a instanceof Double || a instanceof Long;
    expect(numbers.sort()).toEqual(idsWhere(isNumber).sort());
    const sorted = await conn
      .collection('scalars0')
      .find({ a: { $gte: -1e30 } }, { sort: { a: 1, _id: 1 } })
      .toArray();
    const values = sorted.map((d) => Number(d.a));
    expect(values).toEqual([...values].sort((x, y) => x - y));
  });

  const explainName = 'explain names the path: SQL sort and limit from the index when the filter is exact';
  (pushdownOff ? it.skip : itOnFerretdb)(explainName, async () => {
    const explain = async (find: Record<string, unknown>) =>
      (await conn.db!.command({ explain: { find: 'scalars0', ...find } })) as {
        sortPushdown?: boolean;
        limitPushdown?: boolean;
        queryPlanner?: { Plan?: string[]; agoraPath?: string };
      };
    const listing = await explain({ filter: { k: true }, sort: { a: -1, _id: -1 }, limit: 10 });
    expect(listing.queryPlanner?.agoraPath).toBe('agora: SQL sort and limit');
    expect(listing.sortPushdown).toBe(true);
    expect(listing.limitPushdown).toBe(true);
    const plan = listing.queryPlanner?.Plan?.join('\n') ?? '';
    expect(plan).toMatch(/USING INDEX scalars0_[0-9a-f]+_k_1_a_-1__id_-1/);
    expect(plan).not.toMatch(/TEMP B-TREE/);

    const streamed = await explain({ filter: { k: true, _id: { $nin: [1] } }, sort: { a: -1, _id: -1 }, limit: 10 });
    expect(streamed.queryPlanner?.agoraPath).toBe('agora: SQL sort, read until the page is full');
    expect(streamed.limitPushdown).toBe(false);

    const mixedFind = { find: 'mixed0', filter: {}, sort: { a: 1, _id: 1 }, limit: 5 };
    const mixed = (await conn.db!.command({ explain: mixedFind })) as { queryPlanner?: { agoraPath?: string } };
    // `a` holds arrays and documents in that collection: FerretDB sorts.
    expect(mixed.queryPlanner?.agoraPath).toBe('ferretdb: whole table, sorted in FerretDB');
  });

  (pushdownOff ? itOnFerretdb : it.skip)('with AGORA_FERRETDB_PUSHDOWN=off nothing is sorted in SQL', async () => {
    const find = { find: 'scalars0', filter: { k: true }, sort: { a: -1 }, limit: 3 };
    const explained = (await conn.db!.command({ explain: find })) as {
      sortPushdown?: boolean;
      queryPlanner?: { agoraPath?: string };
    };
    expect(explained.sortPushdown).toBe(false);
    expect(explained.queryPlanner?.agoraPath).toBe('ferretdb: whole table, sorted in FerretDB');
  });

  it('a field that becomes unsortable by an update is no longer sorted in SQL, and answers stay the same', async () => {
    const c = conn.collection('scalars1');
    await c.updateOne({ _id: 3 } as never, { $set: { n: [9, -1] } });
    const q: Query = { collection: 'scalars1', filter: {}, sort: { n: 1, _id: 1 }, skip: 0, limit: 5 };
    const got = await pushed(q);
    expect(got).toEqual(await reference(q));
    expect(got[0]).toBe(3); // [9, -1] sorts by its smallest element, -1, first
    await c.updateOne({ _id: 3 } as never, { $set: { n: 1 } });
  });
});
