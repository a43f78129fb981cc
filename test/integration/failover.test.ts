/**
 * Failover is a 503 and reads are retried (issue 41). A replica set cannot run here, so a proxy
 * between the driver and the test database (test/helpers/fault-proxy.ts) answers chosen commands as
 * a primary stepping down does (NotWritablePrimary) or drops the connection under them:
 *   - the hot reads (src/discussion/whole-read.ts) go through the driver's retryable read path, so
 *     one such fault is retried by the driver and the read answers as if nothing happened, and a read
 *     that fails half-way closes its cursor on the server;
 *   - a fault that outlasts the retry is SERVICE_UNAVAILABLE: 503 with Retry-After on REST, and
 *     SERVICE_UNAVAILABLE (HTTP 503, Retry-After) on GraphQL — never a 500.
 */
import crypto from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import { readById, readOne, readWhole } from '../../src/discussion/whole-read';
import { withDatabaseName } from '../../src/server';
import { FaultProxy, NOT_WRITABLE_PRIMARY, startFaultProxy, throughProxy } from '../helpers/fault-proxy';
import { startTestServer, TestServer } from '../helpers/server';

jest.setTimeout(60_000);

let proxy: FaultProxy;
const baseUri = () => process.env.MONGODB_URI!;

beforeAll(async () => {
  proxy = await startFaultProxy(new URL(baseUri()).host);
});
afterAll(async () => {
  await proxy?.close();
});
afterEach(() => {
  proxy.fault = undefined;
  proxy.injected.length = 0;
});

/** Faults the first `times` commands of `name` on `collection`, then forwards the rest. */
function failFirst(times: number, name: string, collection: string, fault: 'drop' | 'stepdown'): void {
  let left = times;
  proxy.fault = (command) => {
    if (command[name] !== collection || left === 0) return undefined;
    left -= 1;
    return fault === 'drop' ? 'drop' : { reply: NOT_WRITABLE_PRIMARY };
  };
}

describe('the hot reads, through the driver', () => {
  let conn: mongoose.Connection;
  let Thing: mongoose.Model<Record<string, unknown>>;
  const finds: string[] = [];

  beforeAll(async () => {
    const name = `agora_failover_${crypto.randomBytes(5).toString('hex')}`;
    conn = await mongoose
      .createConnection(throughProxy(withDatabaseName(baseUri(), name), proxy), {
        monitorCommands: true,
        serverSelectionTimeoutMS: 10_000,
      })
      .asPromise();
    conn.getClient().on('commandStarted', (e) => {
      if (e.commandName === 'find') finds.push(e.commandName);
    });
    const schema = new Schema<Record<string, unknown>>({ _id: Number, n: Number });
    Thing = conn.model<Record<string, unknown>>('FailoverThing', schema, 'things');
    await Thing.collection.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, n: i })) as never[]);
  });
  afterAll(async () => {
    await conn?.dropDatabase().catch(() => {});
    await conn?.close();
  });
  beforeEach(() => {
    finds.length = 0;
  });

  it.each(['stepdown', 'drop'] as const)(
    'a find answered %s once is retried by the driver: readById, readOne and readWhole answer',
    async (fault) => {
      failFirst(1, 'find', 'things', fault);
      expect(await readById(Thing, 7)).toEqual({ _id: 7, n: 7 });
      expect(proxy.injected).toEqual(['find']);
      expect(finds).toEqual(['find', 'find']);

      failFirst(1, 'find', 'things', fault);
      expect(await readOne(Thing, { n: 9 })).toEqual({ _id: 9, n: 9 });

      failFirst(1, 'find', 'things', fault);
      const all = await readWhole<{ _id: number }>(Thing, { filter: {}, sort: { _id: 1 }, batchSize: 100 });
      expect(all.map((d) => d._id)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(proxy.injected).toEqual(['find', 'find', 'find']);
    },
  );

  it('a read whose getMore fails closes its cursor on the server (killCursors)', async () => {
    const sent: string[] = [];
    const listener = (e: { commandName: string }) => sent.push(e.commandName);
    conn.getClient().on('commandStarted', listener);
    // getMore is never retried: a node interrupting it fails the read, whose cursor is still open.
    proxy.fault = (command) =>
      command.getMore !== undefined && command.collection === 'things'
        ? { reply: { ok: 0, code: 11601, codeName: 'Interrupted', errmsg: 'operation was interrupted' } }
        : undefined;
    try {
      const read = readWhole(Thing, { filter: {}, sort: { _id: 1 }, batchSize: 5 });
      await expect(read).rejects.toBeInstanceOf(mongoose.mongo.MongoServerError);
    } finally {
      conn.getClient().off('commandStarted', listener);
    }
    expect(sent).toEqual(['find', 'getMore', 'killCursors']);
  });

  it('a read whose retry fails too throws the driver error, which classifyError makes a 503', async () => {
    failFirst(2, 'find', 'things', 'stepdown');
    const err = (await readById(Thing, 7).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(mongoose.mongo.MongoServerError);
    expect((err as mongoose.mongo.MongoServerError).code).toBe(10107);
    expect(proxy.injected).toEqual(['find', 'find']);
    const { classifyError } = await import('../../src/core/errors');
    expect(classifyError(err)?.status).toBe(503);
  });
});

describe('an election that outlasts the retry, through the front doors', () => {
  let s: TestServer;

  beforeAll(async () => {
    const real = process.env.MONGODB_URI;
    process.env.MONGODB_URI = throughProxy(baseUri(), proxy);
    try {
      s = await startTestServer();
    } finally {
      process.env.MONGODB_URI = real;
    }
  });
  afterAll(async () => {
    await s?.close();
  });

  /** Every read and write command answered NotWritablePrimary while `fn` runs. */
  async function duringElection<T>(fn: () => Promise<T>): Promise<T> {
    proxy.fault = (command) => {
      const name = Object.keys(command)[0]!;
      return ['find', 'aggregate', 'getMore', 'insert', 'update', 'delete', 'findAndModify', 'count'].includes(name)
        ? { reply: NOT_WRITABLE_PRIMARY }
        : undefined;
    };
    try {
      return await fn();
    } finally {
      proxy.fault = undefined;
    }
  }

  it.each([
    ['REST listing', '/api/beta/topics'],
    ['REST topic', '/api/beta/topic/1'],
    ['REST user', '/api/beta/user/alice'],
  ])('%s: 503 with Retry-After, in the REST error format', async (_name, path) => {
    const res = await duringElection(() => fetch(`${s.url}${path}`));
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toEqual([{ message: expect.any(String) }]);
    expect(proxy.injected.length).toBeGreaterThan(0);
  });

  it('a file: 503 with Retry-After, in the files API format', async () => {
    const json = { headers: { accept: 'application/json' } };
    const res = await duringElection(() => fetch(`${s.url}/elsewhere.txt`, json));
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toEqual({ error: 'Service unavailable' });
  });

  it('GraphQL: SERVICE_UNAVAILABLE, HTTP 503 with Retry-After', async () => {
    const res = await duringElection(() =>
      fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ topics { edges { node { id } } } }' }),
      }),
    );
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors.map((e) => e.extensions.code)).toContain('SERVICE_UNAVAILABLE');
  });

  it("keeps the driver's retryable reads and writes on (nothing turns them off)", () => {
    const options = s.agora.db.conn.getClient().options;
    expect([options.retryReads, options.retryWrites]).toEqual([true, true]);
  });

  it('answers again once the election is over', async () => {
    const res = await fetch(`${s.url}/api/beta/topics`);
    expect(res.status).toBe(200);
  });
});
