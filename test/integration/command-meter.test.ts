/**
 * The command meter (src/db/command-meter.ts) against the test database: through the driver's
 * public command monitoring, it hears exactly the commands a metered client's operations send (not
 * its handshakes or server monitoring, not another client's), with their documents, their duration
 * and their failure; the Database's metrics count them. No driver class is patched for it.
 */
import crypto from 'node:crypto';
import mongoose from 'mongoose';
import { meterCommands } from '../../src/db/command-meter';
import { Database } from '../../src/db/connection';
import { Metrics } from '../../src/metrics';
import { withDatabaseName } from '../../src/server';

const uri = () => withDatabaseName(process.env.MONGODB_URI!, `agora_meter_${crypto.randomBytes(5).toString('hex')}`);

interface Heard {
  started: { name: string; command: Record<string, unknown> }[];
  finished: { name: string; ms: number; failure?: unknown }[];
}

function listen(client: mongoose.mongo.MongoClient): Heard & { stop: () => void } {
  const heard: Heard = { started: [], finished: [] };
  const stop = meterCommands(client, {
    started: (name, command) => heard.started.push({ name, command }),
    finished: (name, ms, failure) => heard.finished.push({ name, ms, failure }),
  });
  return { ...heard, stop };
}

describe('command meter', () => {
  let conn: mongoose.Connection;
  let other: mongoose.Connection;

  beforeAll(async () => {
    conn = await mongoose.createConnection(uri(), { monitorCommands: true }).asPromise();
    other = await mongoose.createConnection(uri(), { monitorCommands: true }).asPromise();
  });
  afterAll(async () => {
    await conn?.dropDatabase().catch(() => {});
    await other?.dropDatabase().catch(() => {});
    await conn?.close();
    await other?.close();
  });

  it("hears each command of the client's operations once, in order, with its name and document", async () => {
    const heard = listen(conn.getClient());
    try {
      const things = conn.collection('things');
      await things.insertOne({ _id: 1 as never, n: 1 });
      await things.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
      expect(await things.find({ n: 2 }).toArray()).toEqual([{ _id: 1, n: 2 }]);
      await conn.db!.command({ ping: 1 });
    } finally {
      heard.stop();
    }
    expect(heard.started.map((c) => c.name)).toEqual(['insert', 'update', 'find', 'ping']);
    expect(heard.started[0]!.command.insert).toBe('things');
    expect(heard.started[2]!.command).toMatchObject({ find: 'things', filter: { n: 2 } });
    expect(heard.finished.map((c) => c.name)).toEqual(['insert', 'update', 'find', 'ping']);
    for (const f of heard.finished) {
      expect(f.failure).toBeUndefined();
      expect(f.ms).toBeGreaterThan(0);
    }
  });

  it('hears nothing of another client, nor after it stopped listening', async () => {
    const heard = listen(conn.getClient());
    await other.collection('things').insertOne({ _id: 2 as never });
    heard.stop();
    await conn.collection('things').findOne({ _id: 1 as never });
    expect(heard.started).toEqual([]);
    expect(heard.finished).toEqual([]);
  });

  it('reports a command the server refused with the error it failed with', async () => {
    const heard = listen(conn.getClient());
    try {
      await expect(conn.db!.command({ noSuchCommand: 1 })).rejects.toThrow();
    } finally {
      heard.stop();
    }
    expect(heard.started.map((c) => c.name)).toEqual(['noSuchCommand']);
    expect(heard.finished).toHaveLength(1);
    expect(heard.finished[0]!.failure).toBeInstanceOf(mongoose.mongo.MongoServerError);
  });

  it('refuses a client without command monitoring (it would count nothing)', async () => {
    const quiet = await mongoose.createConnection(uri()).asPromise();
    try {
      expect(() => meterCommands(quiet.getClient(), {})).toThrow(/monitorCommands/);
    } finally {
      await quiet.close();
    }
  });

  it('counts commands and their time in the metrics, and shows watchers plain documents', async () => {
    const metrics = new Metrics({ processMetrics: false });
    const db = await Database.connect(uri(), { metrics });
    try {
      const before = await metrics.mongoCommandTotal();
      const seen: Record<string, unknown>[] = [];
      const unwatch = db.watchCommands((_name, command) => seen.push(command));
      try {
        await db.conn.collection('things').insertMany([{ _id: 1 as never }, { _id: 2 as never }]);
        await db.conn.collection('things').deleteMany({});
      } finally {
        unwatch();
      }
      expect((await metrics.mongoCommandTotal()) - before).toBe(2);
      // Document sequences (OP_MSG sections) appear as the arrays of their documents.
      expect(seen[0]!.documents).toEqual([{ _id: 1 }, { _id: 2 }]);
      expect(seen[1]!.deletes).toEqual([expect.objectContaining({ q: {}, limit: 0 })]);
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/command="insert"/);
      expect(text).toMatch(/command="delete"/);
    } finally {
      await db.conn.dropDatabase().catch(() => {});
      await db.close();
    }
  });
});
