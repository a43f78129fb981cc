/**
 * directCommand (src/db/direct-command.ts) sends the hot reads' commands through Server.command,
 * past the driver's executeOperation: against the test database it must take that path (so a
 * driver upgrade that moves the internals it uses fails here, not silently slower), answer exactly
 * what `db.command` answers (documents, types, errors), and fall back on `db.command` when it
 * cannot take the path or the path failed other than with the server's answer.
 */
import crypto from 'node:crypto';
import mongoose from 'mongoose';
import { directCommand, directPathReady } from '../../src/db/direct-command';
import { withDatabaseName } from '../../src/server';

const { EJSON, Long, Binary, ObjectId } = mongoose.mongo.BSON;
const uri = () => withDatabaseName(process.env.MONGODB_URI!, `agora_direct_${crypto.randomBytes(5).toString('hex')}`);
const canonical = (doc: unknown) => EJSON.stringify(doc, { relaxed: false });

let conn: mongoose.Connection;
let db: mongoose.mongo.Db;

beforeAll(async () => {
  conn = await mongoose.createConnection(uri()).asPromise();
  db = conn.db!;
  await db.collection('things').insertMany([
    {
      _id: 1,
      name: 'é 😀 "quoted"\n',
      big: Long.fromString('9007199254740993'),
      small: Long.fromNumber(42),
      price: 1.1,
      at: new Date(1_760_000_000_000),
      bytes: new Binary(Buffer.from([0, 1, 2])),
      ref: new ObjectId('0123456789abcdef01234567'),
      nested: { list: [1, 'two', null, { three: 3 }], empty: {} },
      negZero: -0,
      none: null,
    },
    ...Array.from({ length: 9 }, (_, i) => ({ _id: i + 2, n: i })),
  ] as never[]);
});
afterAll(async () => {
  await conn?.dropDatabase().catch(() => {});
  await conn?.close();
});

describe('directCommand', () => {
  it('takes the direct path on the test database, without db.command', async () => {
    expect(directPathReady(db)).toBe(true);
    const spy = jest.spyOn(db, 'command');
    try {
      const reply = await directCommand(db, { find: 'things', filter: { _id: 3 }, limit: 1, singleBatch: true });
      expect(reply.cursor.firstBatch).toEqual([{ _id: 3, n: 1 }]);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it.each([
    ['one document of every type', { find: 'things', filter: { _id: 1 }, limit: 1, singleBatch: true }],
    ['a sorted batch', { find: 'things', filter: { n: { $gte: 2 } }, sort: { n: -1 }, batchSize: 100 }],
    ['a projection', { find: 'things', filter: {}, projection: { n: 1 }, sort: { _id: 1 }, batchSize: 100 }],
    ['a count', { count: 'things', query: { n: { $lt: 5 } } }],
  ])('answers %s exactly as db.command does', async (_name, command) => {
    const expected = await db.command(command);
    const got = await directCommand(db, command);
    expect(canonical(got)).toBe(canonical(expected));
  });

  it('keeps a cursor open across batches as db.command does (getMore through the same path)', async () => {
    const first = await directCommand(db, { find: 'things', filter: {}, sort: { _id: 1 }, batchSize: 4 });
    expect(first.cursor.firstBatch.map((d: { _id: number }) => d._id)).toEqual([1, 2, 3, 4]);
    const id = first.cursor.id;
    const next = await directCommand(db, {
      getMore: typeof id === 'number' ? Long.fromNumber(id) : id,
      collection: 'things',
      batchSize: 100,
    });
    expect(next.cursor.nextBatch.map((d: { _id: number }) => d._id)).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it("throws the server's error reply as db.command does", async () => {
    const command = { find: 'things', filter: { $bogus: 1 } };
    const expected = await db.command(command).catch((e: unknown) => e as mongoose.mongo.MongoServerError);
    const got = await directCommand(db, command).catch((e: unknown) => e as mongoose.mongo.MongoServerError);
    expect(got).toBeInstanceOf(mongoose.mongo.MongoServerError);
    expect(expected).toBeInstanceOf(mongoose.mongo.MongoServerError);
    expect(got.code).toBe(expected.code);
    expect(got.message).toBe(expected.message);
  });

  it('goes through db.command when the client has not connected yet', async () => {
    const client = new mongoose.mongo.MongoClient(uri());
    try {
      const other = client.db(db.databaseName);
      expect(directPathReady(other)).toBe(false);
      const reply = await directCommand(other, { find: 'things', filter: { _id: 2 }, limit: 1, singleBatch: true });
      expect(reply.cursor.firstBatch).toEqual([{ _id: 2, n: 0 }]);
    } finally {
      await client.close();
    }
  });

  it('retries once through db.command when the direct path fails with a network error', async () => {
    const topology = (db.client as unknown as { topology: { s: { servers: Map<string, object> } } }).topology;
    const servers = [...topology.s.servers.values()] as { command: (...a: unknown[]) => Promise<unknown> }[];
    const failing = servers.map((s) =>
      jest
        .spyOn(s, 'command')
        .mockRejectedValueOnce(new mongoose.mongo.MongoNetworkError('connection reset (injected by the test)')),
    );
    const fallback = jest.spyOn(db, 'command');
    try {
      const reply = await directCommand(db, { find: 'things', filter: { _id: 4 }, limit: 1, singleBatch: true });
      expect(reply.cursor.firstBatch).toEqual([{ _id: 4, n: 2 }]);
      expect(fallback).toHaveBeenCalledTimes(1);
    } finally {
      fallback.mockRestore();
      for (const f of failing) f.mockRestore();
    }
    // The next command takes the direct path again.
    const spy = jest.spyOn(db, 'command');
    try {
      await directCommand(db, { find: 'things', filter: { _id: 5 }, limit: 1, singleBatch: true });
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
