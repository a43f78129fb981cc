/**
 * Brings up the database for the whole test run when MONGODB_URI is unset: the same launcher as
 * `npm start` (mongod, or FerretDB, built once if needed), with its data in a temporary directory.
 * Workers inherit MONGODB_URI; each test file then uses a database of its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { launchDatabase, LaunchedDatabase } from '../../src/db/launcher';
import { describeServer } from '../helpers/database';

declare global {
  var __agoraTestDatabase: { db: LaunchedDatabase; dir?: string } | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (process.env.MONGODB_URI) {
    const server = await describeServer(process.env.MONGODB_URI);
    Object.assign(process.env, {
      AGORA_TEST_DATABASE_ENGINE: server.engine,
      AGORA_TEST_DATABASE_NAME: `${server.name} at MONGODB_URI`,
    });
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-test-db-'));
  let db: LaunchedDatabase | undefined;
  let server;
  try {
    const config = loadConfig({ ...process.env, DATA_DIR: dir });
    db = await launchDatabase({
      dataDir: dir,
      database: config.database,
      log: (m) => process.stderr.write(`[test-db] ${m}\n`),
    });
    server = await describeServer(db.uri);
  } catch (err) {
    // No database (no Go, no mongod, …): the run fails, and leaves nothing behind.
    await db?.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  process.env.MONGODB_URI = db.uri;
  process.env.AGORA_TEST_DATABASE_KIND = db.kind;
  process.env.AGORA_TEST_DATABASE_ENGINE = server.engine;
  // For FerretDB the launcher's words say whether it is Agora's build ("FerretDB v1.24.2 + Agora patches").
  process.env.AGORA_TEST_DATABASE_NAME =
    db.kind === 'ferretdb' ? db.description.replace(/ \(SQLite in [^)]*\)$/, ' (SQLite)') : server.name;
  globalThis.__agoraTestDatabase = { db, dir };
}
