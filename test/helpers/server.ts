/**
 * Starts a real Agora app on a loopback port against the test run's real database, in a database
 * of its own (dropped on close), so test files can run in parallel.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, Config } from '../../src/config';
import { SettableClock } from '../../src/discussion/clock';
import { Agora, createAgora, withDatabaseName } from '../../src/server';
import type { DiskIo } from '../../src/storage';

export interface TestServer {
  /** http://127.0.0.1:<port> */
  url: string;
  agora: Agora;
  config: Config;
  /** The discussion domain's clock: tests freeze it to write history at chosen times. */
  clock: SettableClock;
  /** Runs fn and returns its result with the number of MongoDB commands it issued (its live events' included). */
  countCommands<T>(fn: () => Promise<T>): Promise<{ result: T; commands: number }>;
  close(): Promise<void>;
}

export const TEST_JWT_SECRET = 'test-secret-0123456789-0123456789-abcdef';

/**
 * `start: false` leaves the start-up work (demo seed, sweepers) to the test: `server.agora.start()`;
 * `diskIo` replaces the disk store's file-system calls (a fault-injection double).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { start?: boolean; diskIo?: DiskIo; shareWith?: TestServer } = {},
): Promise<TestServer> {
  const baseUri = process.env.MONGODB_URI;
  if (!baseUri)
    throw new Error('MONGODB_URI is not set: run the tests through jest (globalSetup launches the database)');
  // `shareWith`: a second instance on the same database and data directory (several instances).
  const dbName = opts.shareWith?.agora.db.conn.name ?? `agora_test_${crypto.randomBytes(6).toString('hex')}`;
  const dataDir = opts.shareWith?.config.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agora-test-data-'));
  users.set(dataDir, (users.get(dataDir) ?? 0) + 1);
  try {
    return await startIn(dataDir, dbName, baseUri, env, opts);
  } catch (err) {
    // A server that did not start leaves no data directory behind.
    release(dataDir);
    throw err;
  }
}

/** Instances using each data directory: it is removed when the last of them closes. */
const users = new Map<string, number>();

function release(dataDir: string): void {
  const left = (users.get(dataDir) ?? 1) - 1;
  if (left > 0) return void users.set(dataDir, left);
  users.delete(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function startIn(
  dataDir: string,
  dbName: string,
  baseUri: string,
  env: Record<string, string>,
  opts: { start?: boolean; diskIo?: DiskIo; shareWith?: TestServer },
): Promise<TestServer> {
  const config = loadConfig({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    DEMO_SEED: 'false',
    FILES_CLEANUP_INTERVAL: '0',
    // Test files upload and register many times from 127.0.0.1: no per-address limits unless a
    // test sets its own (test/integration/hardening/rate-limits.test.ts).
    FILES_UPLOAD_RATE_LIMIT: '0',
    REGISTRATION_RATE_LIMIT: '0',
    // Nor per-account write limits: test files post, vote and label in loops as one user.
    TOPIC_RATE_LIMIT: '0',
    COMMENT_RATE_LIMIT: '0',
    VOTE_RATE_LIMIT: '0',
    LABEL_RATE_LIMIT: '0',
    // Nor the wrong-key limit: tests try many wrong keys on one file (files/key-checks.test.ts sets it).
    FILES_KEY_CHECK_LIMIT: '0',
    ...env,
  });
  const clock = new SettableClock();
  const agora = await createAgora(config, {
    clock,
    mongoUri: withDatabaseName(baseUri, dbName),
    databaseKind: process.env.AGORA_TEST_DATABASE_KIND ?? 'external',
    jwtSecret: config.jwtSecret ?? TEST_JWT_SECRET,
    processMetrics: false,
    diskIo: opts.diskIo,
  });
  await agora.app.listen({ host: '127.0.0.1', port: 0 });
  if (opts.start !== false) await agora.start();
  const addr = agora.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    agora,
    config,
    clock,
    async countCommands(fn) {
      // Earlier changes' live events are not fn's.
      await agora.eventsWritten();
      const before = await agora.metrics.mongoCommandTotal();
      const result = await fn();
      // Events still being written (a batch fn's change joined) are counted with it.
      await agora.eventsWritten();
      const commands = (await agora.metrics.mongoCommandTotal()) - before;
      return { result, commands };
    },
    async close() {
      try {
        if (opts.shareWith) return await agora.close();
        try {
          // Events still queued would be written into the dropped database, bringing it back.
          await agora.eventsWritten();
          await agora.db.dropDatabase();
        } finally {
          await agora.close();
        }
      } finally {
        // The data directory goes with the last instance using it (one that shares it may close
        // after its owner), even when closing failed.
        release(dataDir);
      }
    },
  };
}
