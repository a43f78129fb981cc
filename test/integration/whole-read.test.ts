/**
 * readWhole (src/discussion/whole-read.ts) reads a topic's comments with the find command and
 * getMore instead of a driver cursor, and readById / readOne / readByIds the hot small reads: the
 * documents must be exactly those `.find().lean()` gives
 * (types, values, field order, order), across batches too. On FerretDB the documents come from the
 * raw path of patch 0008 where it applies (an exclusion projection, a sort on an index), and the
 * batch of binary data below from FerretDB's own path.
 */
import crypto from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import { withDatabaseName } from '../../src/server';
import { readById, readByIds, readOne, readWhole } from '../../src/discussion/whole-read';
import { testDatabase } from '../helpers/database';

const { Binary, EJSON } = { Binary: mongoose.mongo.Binary, EJSON: mongoose.mongo.BSON.EJSON };
const dbName = `agora_whole_${crypto.randomBytes(5).toString('hex')}`;
let conn: mongoose.Connection;
let Thing: mongoose.Model<Record<string, unknown>>;
const commands: string[] = [];

const canonical = (docs: unknown) => EJSON.stringify(docs, { relaxed: false });

beforeAll(async () => {
  conn = await mongoose
    .createConnection(withDatabaseName(process.env.MONGODB_URI!, dbName), { monitorCommands: true })
    .asPromise();
  conn.getClient().on('commandStarted', (e) => commands.push(e.commandName));
  const schema = new Schema<Record<string, unknown>>({ _id: Number, group: Number }, { strict: false });
  Thing = conn.model<Record<string, unknown>>('WholeReadThing', schema, 'things');
  await Thing.collection.createIndex({ group: 1, _id: 1 });
  const docs = Array.from({ length: 23 }, (_, i) => ({
    _id: i,
    group: i % 2,
    html: `<p>comment ${i} &amp; "quotes" 😀</p>\n`,
    markdown: `comment *${i}*`,
    createdAt: new Date(1_760_000_000_000 + i * 1000),
    editedAt: i % 3 === 0 ? null : new Date(1_770_000_000_000 + i),
    voteCount: i * 1.5,
    labelWeights: { exemplary: i % 4, noise: 0 },
    ...(i === 7 ? { attachment: new Binary(Buffer.from([1, 2, 3]), 0) } : {}),
  }));
  await Thing.collection.insertMany(docs as never[]);
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

describe(`on ${testDatabase().name}`, () => {
  it.each([
    ['one batch, without markdown', { group: 1 }, { _id: 1 }, { markdown: 0 }, 1_000_000],
    ['batches of 4, without markdown', { group: 1 }, { _id: 1 }, { markdown: 0 }, 4],
    ['batches of 3, everything, descending', { group: 0 }, { _id: -1 }, undefined, 3],
    ['batches of 5, the whole collection', {}, { _id: 1 }, { markdown: 0, html: 0 }, 5],
  ] as const)('%s: the documents find().lean() gives, in order', async (_name, filter, sort, projection, batchSize) => {
    const expected = await Thing.find(filter, projection ?? {})
      .sort(sort)
      .lean()
      .exec();
    commands.length = 0;
    const actual = await readWhole<Record<string, unknown>>(Thing, {
      filter,
      sort: sort as Record<string, 1 | -1>,
      projection: projection as Record<string, 0> | undefined,
      batchSize,
    });
    expect(actual.length).toBeGreaterThan(3);
    expect(canonical(actual)).toBe(canonical(expected));
    // Every batch was asked for (a server may or may not close the cursor on an exactly full
    // last batch), and nothing else.
    const getMores = Math.ceil(expected.length / batchSize) - 1;
    expect(commands[0]).toBe('find');
    expect(commands.slice(1).every((c) => c === 'getMore')).toBe(true);
    expect(commands.length - 1).toBeGreaterThanOrEqual(getMores);
    expect(commands.length - 1).toBeLessThanOrEqual(getMores + 1);
  });

  it('an empty answer is an empty list', async () => {
    expect(await readWhole(Thing, { filter: { group: 9 }, sort: { _id: 1 }, batchSize: 10 })).toEqual([]);
  });

  it('a page (limit): the documents find().sort().limit().lean() gives, in one find command', async () => {
    for (const [filter, sort, limit] of [
      [{ group: 1 }, { createdAt: -1, _id: -1 }, 5],
      [{}, { _id: 1 }, 23],
      [{ group: 0 }, { _id: -1 }, 50],
    ] as const) {
      const expected = await Thing.find(filter).sort(sort).limit(limit).lean().exec();
      commands.length = 0;
      const actual = await readWhole<Record<string, unknown>>(Thing, { filter, sort, limit });
      expect(canonical(actual)).toBe(canonical(expected));
      expect(commands).toEqual(['find']);
    }
  });

  it('readById, readOne and readByIds: what findById, findOne and find $in give, one command each', async () => {
    for (const id of [0, 7, 22]) {
      commands.length = 0;
      expect(canonical(await readById(Thing, id))).toBe(canonical(await Thing.findById(id).lean().exec()));
      expect(commands[0]).toBe('find');
    }
    expect(canonical(await readOne(Thing, { group: 1, voteCount: 4.5 }))).toBe(
      canonical(await Thing.findOne({ group: 1, voteCount: 4.5 }).lean().exec()),
    );
    const ids = [3, 5, 8, 13, 21, 99];
    commands.length = 0;
    const many = await readByIds<Record<string, unknown>>(Thing, [...ids, Number.NaN]);
    expect(commands).toEqual(['find']);
    const byId = (docs: Record<string, unknown>[]) => [...docs].sort((a, b) => Number(a._id) - Number(b._id));
    expect(canonical(byId(many))).toBe(
      canonical(
        byId(
          await Thing.find({ _id: { $in: ids } })
            .lean()
            .exec(),
        ),
      ),
    );
    // Nothing to find: no command at all for ids no document can have, null or [] as mongoose would.
    commands.length = 0;
    expect(await readById(Thing, 99)).toBeNull();
    expect(await readById(Thing, Number.NaN)).toBeNull();
    expect(await readByIds(Thing, [])).toEqual([]);
    expect(await readByIds(Thing, [Number.NaN])).toEqual([]);
    expect(commands).toEqual(['find']);
  });

  it('reads by id made together go as one find of their ids; each caller gets its own document', async () => {
    commands.length = 0;
    const ids = [3, 5, 5, 8, 99, 13];
    const docs = await Promise.all(ids.map((id) => readById<Record<string, unknown>>(Thing, id)));
    expect(commands).toEqual(['find']);
    for (const [i, id] of ids.entries()) {
      expect(canonical(docs[i])).toBe(canonical(await Thing.findById(id).lean().exec()));
    }
    // The same id asked twice: two documents, so one caller's change is not the other's.
    expect(docs[1]).not.toBe(docs[2]);
    // Reads of two collections, or made in different turns of the event loop, are finds of their own.
    commands.length = 0;
    await readById(Thing, 3);
    await readById(Thing, 5);
    expect(commands).toEqual(['find', 'find']);
  });
});
