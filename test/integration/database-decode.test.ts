/**
 * The embedded FerretDB is built with Agora's document decoder (third_party/ferretdb/, patch 0002
 * and agora_decode.go, whose Go tests compare it with FerretDB's own decoder), which
 * replaces FerretDB's encoding/json decoding of stored documents where it can reproduce it exactly.
 * Every document read from the database passes through it, so here every BSON type the backend
 * stores, and the strings and numbers whose JSON text is tricky, are written and read back: each
 * must come back with the same type, value and field order (canonical Extended JSON compares all
 * three). On MongoDB this holds too, and the one FerretDB-specific expectation (-0) says so.
 */
import crypto from 'node:crypto';
import mongoose from 'mongoose';
import { withDatabaseName } from '../../src/server';
import { testDatabase } from '../helpers/database';

const { Binary, BSONRegExp, Double, Int32, Long, ObjectId, Timestamp } = mongoose.mongo;
const { EJSON } = mongoose.mongo.BSON;
const dbName = `agora_decode_${crypto.randomBytes(5).toString('hex')}`;
let conn: mongoose.Connection;

const strings: Record<string, string> = {
  empty: '',
  plain: 'plain text',
  html: '<p>a < b && c > d</p>', // Go's encoder writes < > & as \u003c \u003e \u0026
  quotes: 'say "hi" \\ back\\slash /slash',
  controls: 'tab\tnew\nline\rback\bform\f',
  nul: 'nul\u0000inside',
  low: '\u0001\u001f',
  del: 'del\u007f',
  accents: 'café naïve',
  cjk: '日本語のテキスト',
  emoji: 'smile 😀 and 👍🏽', // outside the BMP: four UTF-8 bytes, a surrogate pair in UTF-16
  separators: 'line\u2028para\u2029', // escaped by Go's encoder
  replacement: 'already \ufffd here',
  unicodeEscapeLike: '\\u0041 is not A',
  long: `${'long text '.repeat(1_000)}end`,
};

const numbers: Record<string, unknown> = {
  intZero: new Int32(0),
  intNeg: new Int32(-1),
  intMax: new Int32(2147483647),
  intMin: new Int32(-2147483648),
  longSmall: Long.fromNumber(5),
  longMax: Long.MAX_VALUE,
  longMin: Long.MIN_VALUE,
  longAbove2p53: Long.fromString('9007199254740993'),
  doubleIntegral: new Double(5),
  doubleZero: new Double(0),
  doubleTenth: new Double(0.1),
  doubleHuge: new Double(1e300),
  doubleMax: new Double(Number.MAX_VALUE),
  doubleTiny: new Double(5e-324),
  doubleE21: new Double(1e21),
  doubleNeg: new Double(-123456789.125),
  doubleThird: new Double(1 / 3),
};

const others: Record<string, unknown> = {
  yes: true,
  no: false,
  nothing: null,
  oid: new ObjectId('65a1b2c3d4e5f60718293a4b'),
  epoch: new Date(0),
  before1970: new Date('1969-07-20T20:17:40.123Z'),
  future: new Date('2999-12-31T23:59:59.999Z'),
  binary: new Binary(Buffer.from([0, 1, 2, 250, 255]), 0),
  uuid: new Binary(Buffer.from('0123456789abcdef0123456789abcdef', 'hex'), 4),
  regex: new BSONRegExp('^a.*[b"\\\\]$', 'im'),
  timestamp: new Timestamp({ t: 1_700_000_000, i: 7 }),
  emptyDoc: {},
  emptyArray: [],
  nested: { a: { b: { c: { d: { e: 'deep', n: new Int32(1) } } } }, z: [] },
  mixedArray: [
    new Int32(1),
    'two',
    new Double(3.5),
    null,
    true,
    { four: new Int32(4), inner: [new Int32(5)] },
    new Date(1),
  ], // FerretDB 1.24 refuses arrays in arrays
  arrayOfDocs: [{ a: new Int32(1) }, { a: 'x', b: { c: null } }, {}],
  'key with space': 'v',
  'ключ <&>': 'odd key', // top-level keys with " or \ are refused by FerretDB 1.24's SQLite backend itself
  nestedOddKeys: { 'a"b': 1, 'c\\d': 2, 'e<f>': 3 },
};

const docs: Record<string, unknown>[] = [
  { _id: 1, ...strings },
  { _id: 2, ...numbers },
  { _id: 3, ...others },
  { _id: 'string id <&>', only: 'one field' },
  { _id: new ObjectId('0123456789abcdef01234567'), html: strings.html, n: new Int32(3) },
  {
    _id: 4,
    parentId: null,
    editedAt: new Date(1_783_000_000_000),
    tags: ['a', 'b'],
    labelWeights: { noise: new Int32(0) },
  },
  { _id: 6, negativeZero: new Double(-0) },
  { _id: 5, parentId: new Int32(4), editedAt: null, tags: [], labelWeights: { noise: new Int32(2) } },
];

const canonical = (doc: unknown) => EJSON.stringify(doc, { relaxed: false });
/** Numbers as their BSON types (by default the driver turns a Long that fits into a JS number). */
const raw = { promoteValues: false };
/** A document as [key, canonical value] pairs, so that a failure names the fields that differ. */
const fields = (doc: unknown) => Object.entries(doc as Record<string, unknown>).map(([k, v]) => [k, canonical(v)]);

beforeAll(async () => {
  conn = await mongoose.createConnection(withDatabaseName(process.env.MONGODB_URI!, dbName)).asPromise();
  await conn.collection('decode').insertMany(docs.map((d) => ({ ...d })) as never[]);
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

const database = testDatabase();

describe(`on ${database.name}`, () => {
  const exact = docs.filter((d) => d._id !== 6);

  it.each(exact.map((d) => [canonical(d._id), d]))(
    'document %s reads back with the same types, values and field order',
    async (_name, doc) => {
      const read = await conn.collection('decode').findOne({ _id: (doc as { _id: never })._id }, raw);
      expect(fields(read)).toEqual(fields(doc));
    },
  );

  it('all documents read back together, in one batch, the same', async () => {
    const read = await conn.collection('decode').find({}, raw).sort({ _id: 1 }).toArray();
    expect(read).toHaveLength(docs.length);
    const byId = new Map(read.map((d) => [canonical(d._id), fields(d)]));
    for (const doc of exact) expect(byId.get(canonical(doc._id))).toEqual(fields(doc));
  });

  it(`-0 reads back as a double zero: without its sign on FerretDB 1.24 (its wire layer drops it), with it on \
MongoDB`, async () => {
    const read = await conn.collection('decode').findOne({ _id: 6 } as never, raw);
    expect(read?.negativeZero).toBeInstanceOf(Double);
    const value = (read?.negativeZero as InstanceType<typeof Double>).value;
    expect(value).toBe(0);
    expect(Object.is(value, -0)).toBe(database.engine === 'mongodb');
  });

  it('values changed by an update decode as written', async () => {
    const c = conn.collection('decode');
    await c.updateOne({ _id: 1 } as never, {
      $set: { html: '<b>&amp;</b> "x"', added: new Long(7) },
      $unset: { nul: '' },
    });
    const read = await c.findOne({ _id: 1 } as never, raw);
    const { nul: _removed, ...rest } = strings;
    expect(fields(read)).toEqual(fields({ _id: 1, ...rest, html: '<b>&amp;</b> "x"', added: new Long(7) }));
  });

  it('a query on a decoded field still matches (strings with escapes included)', async () => {
    const c = conn.collection('decode');
    expect(await c.countDocuments({ html: strings.html })).toBe(1);
    expect(await c.countDocuments({ emoji: strings.emoji })).toBe(1);
    expect(await c.countDocuments({ negativeZero: 0 })).toBe(1);
    expect(await c.countDocuments({ 'nested.a.b.c.d.e': 'deep' })).toBe(1);
  });

  it('projections (FerretDB patched for empty and exclusion projections) return what MongoDB would', async () => {
    const c = conn.collection('decode');
    const doc = docs.find((d) => d._id === 3)!;
    const without = (...keys: string[]) => Object.fromEntries(Object.entries(doc).filter(([k]) => !keys.includes(k)));
    expect(fields(await c.findOne({ _id: 3 } as never, { ...raw, projection: {} }))).toEqual(fields(doc));
    expect(fields(await c.findOne({ _id: 3 } as never, { ...raw, projection: { nested: 0, binary: 0 } }))).toEqual(
      fields(without('nested', 'binary')),
    );
    expect(fields(await c.findOne({ _id: 3 } as never, { ...raw, projection: { _id: 0, yes: 0 } }))).toEqual(
      fields(without('_id', 'yes')),
    );
    expect(fields(await c.findOne({ _id: 3 } as never, { ...raw, projection: { 'nested.a.b': 0 } }))).toEqual(
      fields({ ...doc, nested: { a: {}, z: [] } }),
    );
    expect(fields(await c.findOne({ _id: 3 } as never, { ...raw, projection: { yes: 1, oid: 1 } }))).toEqual(
      fields({ _id: 3, yes: true, oid: doc.oid }),
    );
    // The projected copy is private: the stored document is unchanged.
    expect(fields(await c.findOne({ _id: 3 } as never, raw))).toEqual(fields(doc));
  });
});
