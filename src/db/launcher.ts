/**
 * Chooses the database, in the order of design/stack.md:
 *   1. MONGODB_URI → used as is;
 *   2. a `mongod` on PATH (or MONGOD_BIN) → started with its data under DATA_DIR;
 *   3. FerretDB 1.24 (FERRETDB_BIN, the cached build, or built once with Go) → SQLite under DATA_DIR;
 *   4. mongodb-memory-server (downloads MongoDB; needs the internet);
 *   5. otherwise a clear error naming all of the above.
 *
 * A launched server is recorded in DATA_DIR/db/server.json (pid, uri). Any later process on the
 * same DATA_DIR (a second command line, a restarted server) reuses a recorded server that is still
 * alive instead of starting a second one on the same files; only the process that launched it
 * stops it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseConfig } from '../config';
import { buildFerretdb, cachedFerretdbPath, FERRETDB_VERSION, ferretdbBuildName } from './ferretdb-build';
import { freePort, isAlive, startServer, stopPid, waitForPort, whichSync } from './server-process';

export type DatabaseKind = 'external' | 'mongod' | 'ferretdb' | 'memory-server';

export interface LaunchedDatabase {
  kind: DatabaseKind;
  /** Connection string without a database name. */
  uri: string;
  /** Human-readable: what runs where. */
  description: string;
  /** True when this process started the server (and so stops it). */
  owned: boolean;
  /** Stops the server if this process owns it; otherwise does nothing. */
  stop(): Promise<void>;
  /** Pid of the launched server process, when there is one. */
  pid?: number;
}

interface ServerRecord {
  kind: DatabaseKind;
  uri: string;
  pid: number;
  ownerPid: number;
  description: string;
  startedAt: string;
}

type Log = (msg: string) => void;

export interface LaunchOptions {
  dataDir: string;
  database: DatabaseConfig;
  log: Log;
}

export async function launchDatabase(opts: LaunchOptions): Promise<LaunchedDatabase> {
  const { database: cfg, log } = opts;
  if (cfg.uri) {
    return { kind: 'external', uri: cfg.uri, description: `MongoDB at ${redact(cfg.uri)} (MONGODB_URI)`, owned: false, stop: async () => {} };
  }
  const dbDir = path.join(opts.dataDir, 'db');
  fs.mkdirSync(dbDir, { recursive: true });
  const recordFile = path.join(dbDir, 'server.json');

  const release = await acquireLock(path.join(dbDir, 'launch.lock'), (pid) => log(`waiting for process ${pid}, which is launching the database in ${dbDir} …`));
  try {
    const existing = readRecord(recordFile);
    if (existing && isAlive(existing.pid)) {
      const port = Number(new URL(existing.uri).port);
      try {
        await waitForPort(port, 2000);
        return { kind: existing.kind, uri: existing.uri, description: `${existing.description} (already running, pid ${existing.pid})`, owned: false, pid: existing.pid, stop: async () => {} };
      } catch {
        // Alive but not answering: a stale pid reused by another process, or a hung server.
      }
    }
    fs.rmSync(recordFile, { force: true });
    const launched = await startLocalServer(dbDir, cfg, log);
    const record: ServerRecord = { kind: launched.kind, uri: launched.uri, pid: launched.pid, ownerPid: process.pid, description: launched.description, startedAt: new Date().toISOString() };
    fs.writeFileSync(recordFile, JSON.stringify(record, null, 2));
    return {
      ...launched,
      owned: true,
      stop: async () => {
        await launched.stop();
        const now = readRecord(recordFile);
        if (now && now.pid === launched.pid) fs.rmSync(recordFile, { force: true });
      },
    };
  } finally {
    release();
  }
}

interface Started {
  kind: DatabaseKind;
  uri: string;
  description: string;
  pid: number;
  stop(): Promise<void>;
}

async function startLocalServer(dbDir: string, cfg: DatabaseConfig, log: Log): Promise<Started> {
  const tried: string[] = [];

  const mongod = cfg.mongodBin ?? whichSync('mongod', cfg.searchPath);
  if (mongod) return startProcess('mongod', mongod, dbDir, log, (port, dir) => ['--dbpath', dir, '--bind_ip', '127.0.0.1', '--port', String(port)]);
  tried.push('MONGOD_BIN / a `mongod` on PATH: none found');

  let ferret = cfg.ferretdbBin;
  if (!ferret && fs.existsSync(cachedFerretdbPath(cfg.cacheDir))) ferret = cachedFerretdbPath(cfg.cacheDir);
  if (!ferret) {
    const go = whichSync('go', cfg.searchPath);
    if (go) {
      try {
        ferret = await buildFerretdb(go, cfg.cacheDir, log);
      } catch (err) {
        tried.push(`FerretDB ${FERRETDB_VERSION} built with Go: failed: ${(err as Error).message.split('\n')[0]}`);
      }
    } else {
      tried.push(`FerretDB ${FERRETDB_VERSION}: FERRETDB_BIN unset, no cached build in ${cfg.cacheDir}, no \`go\` on PATH to build one`);
    }
  }
  if (ferret) {
    return startProcess('ferretdb', ferret, dbDir, log, (port, dir) => [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--listen-addr=127.0.0.1:${port}`,
      '--telemetry=disable',
      '--debug-addr=-',
      `--state-dir=${dir}`,
      '--log-level=WARN',
    ]);
  }

  try {
    return await startMemoryServer(dbDir, log);
  } catch (err) {
    tried.push(`mongodb-memory-server: ${(err as Error).message.split('\n')[0]}`);
  }

  throw new Error(
    'No database available. Agora tried, in order:\n' +
      ['MONGODB_URI: unset', ...tried].map((t) => `  - ${t}`).join('\n') +
      '\nSet MONGODB_URI to a MongoDB server, put `mongod` on PATH (or set MONGOD_BIN), set FERRETDB_BIN to a FerretDB 1.24 binary, or install Go so FerretDB can be built.',
  );
}

async function startProcess(kind: 'mongod' | 'ferretdb', bin: string, dbDir: string, log: Log, args: (port: number, dir: string) => string[]): Promise<Started> {
  const dir = path.join(dbDir, kind);
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  // FerretDB spends a fifth of its CPU in Go's garbage collector while decoding documents: a
  // collection at a quarter of the frequency answers listings ~15% faster, for a few MiB of heap.
  const env = kind === 'ferretdb' ? { ...process.env, GOGC: '400' } : process.env;
  const child = startServer(bin, args(port, dir), path.join(dbDir, `${kind}.log`), env);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${bin}`);
  try {
    await waitForPort(port, 30_000, child);
  } catch (err) {
    await stopPid(pid);
    throw new Error(`${kind} at ${bin} did not start: ${(err as Error).message} (see ${path.join(dbDir, `${kind}.log`)})`);
  }
  child.unref();
  const label = kind === 'ferretdb' ? `FerretDB ${ferretdbBuildName(bin)} (SQLite in ${dir})` : `mongod (${bin}, data in ${dir})`;
  log(`Started ${label} on 127.0.0.1:${port}`);
  return { kind, uri: `mongodb://127.0.0.1:${port}`, description: label, pid, stop: () => stopPid(pid) };
}

const MEMORY_SERVER_TIMEOUT_MS = 300_000;

async function startMemoryServer(dbDir: string, log: Log): Promise<Started> {
  let mod: { MongoMemoryServer: { create(o: unknown): Promise<{ getUri(): string; stop(): Promise<boolean>; instanceInfo?: { instance?: { mongodProcess?: { pid?: number } } } }> } };
  try {
    mod = require('mongodb-memory-server-core');
  } catch {
    throw new Error('package not installed');
  }
  const dir = path.join(dbDir, 'memory-server');
  fs.mkdirSync(dir, { recursive: true });
  log('Trying mongodb-memory-server: it downloads a MongoDB binary on first use (needs the internet)…');
  // Without the internet its download can wait forever on a silently dropped connection: bound it,
  // so a start (or a CLI command) fails with the list of options instead of hanging.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no MongoDB binary within ${MEMORY_SERVER_TIMEOUT_MS / 1000} s (download unreachable?)`)), MEMORY_SERVER_TIMEOUT_MS);
    timer.unref();
  });
  const server = await Promise.race([mod.MongoMemoryServer.create({ instance: { dbPath: dir, storageEngine: 'wiredTiger', ip: '127.0.0.1' } }), timeout]).finally(() => clearTimeout(timer));
  const uri = server.getUri().replace(/\/[^/]*$/, '');
  return { kind: 'memory-server', uri, description: `mongodb-memory-server (data in ${dir})`, pid: server.instanceInfo?.instance?.mongodProcess?.pid ?? process.pid, stop: async () => void (await server.stop()) };
}

function readRecord(file: string): ServerRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ServerRecord;
  } catch {
    return undefined;
  }
}

/** An exclusive lock file holding our pid; a lock left by a dead process is taken over. */
async function acquireLock(file: string, onWait: (holder: number | string) => void): Promise<() => void> {
  let told = false;
  const deadline = Date.now() + 15 * 60_000; // a first FerretDB build can hold it for minutes
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const { holder, ageMs } = readLock(file);
      // An empty lock may be one another process created a moment ago and has not yet written its
      // pid into: taking it over then would let two launches run. Only an old empty lock is stale.
      const stale = holder === undefined ? ageMs > 10_000 : !isAlive(holder);
      if (stale) {
        fs.rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another process (pid ${holder ?? 'unknown'}) holds ${file}`);
      if (!told) onWait(holder ?? 'unknown');
      told = true;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function readLock(file: string): { holder: number | undefined; ageMs: number } {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const pid = Number(text);
    const ageMs = Date.now() - fs.statSync(file).mtimeMs;
    return { holder: text.trim() !== '' && Number.isInteger(pid) && pid > 0 ? pid : undefined, ageMs };
  } catch {
    return { holder: undefined, ageMs: Infinity }; // gone meanwhile: try again at once
  }
}

function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, '//***@');
}
