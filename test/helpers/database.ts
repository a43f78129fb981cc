/**
 * Which database the test run is on, as the global setup found it (test/setup/global-setup.ts asks
 * the server's buildInfo, so an external MONGODB_URI is named too). Database tests put it in their
 * names, and checks that only apply to one engine are skipped with the reason on the others.
 */
export type TestEngine = 'ferretdb' | 'mongodb';

export interface TestDatabase {
  engine: TestEngine;
  /** e.g. "FerretDB v1.24.2 + Agora patches (SQLite)", "mongod 8.0.4", "FerretDB v1.24.2 at MONGODB_URI". */
  name: string;
}

export function testDatabase(): TestDatabase {
  const engine = process.env.AGORA_TEST_DATABASE_ENGINE;
  if (engine !== 'ferretdb' && engine !== 'mongodb') {
    throw new Error('AGORA_TEST_DATABASE_ENGINE unset: run through jest (test/setup/global-setup.ts)');
  }
  return { engine, name: process.env.AGORA_TEST_DATABASE_NAME ?? engine };
}

/** `it` on the given engine; elsewhere a skipped test whose name says why. */
export function itOn(engine: TestEngine, why: string): jest.It {
  if (testDatabase().engine === engine) return it;
  const skipped = ((name: string, fn?: jest.ProvidesCallback, timeout?: number) =>
    it.skip(`${name} (skipped on ${testDatabase().name}: ${why})`, fn, timeout)) as jest.It;
  return Object.assign(skipped, { each: it.skip.each });
}

/** Asks a server what it is: FerretDB answers buildInfo with its own version beside MongoDB's. */
export async function describeServer(uri: string): Promise<TestDatabase> {
  const { MongoClient } = (await import('mongoose')).mongo;
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 30_000 });
  try {
    const info = (await client.db('admin').command({ buildInfo: 1 })) as { version?: string; ferretdbVersion?: string };
    if (info.ferretdbVersion) return { engine: 'ferretdb', name: `FerretDB ${info.ferretdbVersion}` };
    return { engine: 'mongodb', name: `MongoDB ${info.version}` };
  } finally {
    await client.close();
  }
}
