/**
 * Chooses the database, in this order (docs/architecture.md, "The embedded database"):
 *   1. MONGODB_URI → used as is;
 *   2. a `mongod` on PATH (or MONGOD_BIN) → started with its data under DATA_DIR;
 *   3. FerretDB 1.24 (FERRETDB_BIN, the cached build, or built once with Go) → SQLite under DATA_DIR;
 *   4. mongodb-memory-server (downloads MongoDB; needs the internet);
 *   5. otherwise a clear error naming all of the above.
 *
 * A launched server is recorded in DATA_DIR/db/server.json (pid, uri, owner). Any later process on
 * the same DATA_DIR (a second command line, a restarted server) reuses a recorded server that is
 * still alive instead of starting a second one on the same files. Its owner stops it; when the
 * owner is gone (a crashed server), the next process to look becomes the owner. Every decision —
 * launch, relaunch, adopt — is taken holding the launch lock (DATA_DIR/db/launch.lock.<n>,
 * launch-lock.ts), so two live processes never both own the database. A relaunch keeps the port
 * (remembered in DATA_DIR/db/port), so clients already connected reconnect by themselves.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseConfig } from '../config';
import { commandLine } from '../core/process';
import { acquireLaunchLock } from './launch-lock';
import { buildFerretdb, cachedFerretdbPath, FERRETDB_VERSION, ferretdbBuildName, isAgoraBuild } from './ferretdb-build';
import { freePort, isAlive, portIsFree, startServer, stopPid, waitForPort, whichSync } from './server-process';

export type DatabaseKind = 'external' | 'mongod' | 'ferretdb' | 'memory-server';

/** What `ensure()` found: the database was fine, was ownerless and is now ours, or was relaunched. */
export type EnsureOutcome = 'running' | 'shared' | 'adopted' | 'launched';

export interface LaunchedDatabase {
  kind: DatabaseKind;
  /** Connection string without a database name. */
  uri: string;
  /** Human-readable: what runs where. */
  description: string;
  /** True when this process owns the server (launched or adopted it), and so stops it. */
  owned: boolean;
  /** Stops the server if this process owns it; otherwise does nothing. */
  stop(): Promise<void>;
  /** Pid of the launched server process, when there is one. */
  pid?: number;
  /** Pid of the process that owns the server (this one when `owned`). */
  ownerPid?: number;
  /**
   * Embedded mongod/FerretDB only (what a supervisor can look after): under the launch lock,
   * adopts the server when its owner is gone, relaunches it on the same port and data when it is
   * gone, and refreshes pid/owner from the record. Throws when a relaunch fails.
   */
  ensure?(): Promise<EnsureOutcome>;
}

interface ServerRecord {
  kind: DatabaseKind;
  uri: string;
  pid: number;
  ownerPid: number;
  description: string;
  startedAt: string;
  adoptedAt?: string;
}

type Log = (msg: string) => void;

export interface LaunchOptions {
  dataDir: string;
  database: DatabaseConfig;
  log: Log;
}

/** Where one DATA_DIR keeps its database's files, record, lock and port. */
interface Place {
  dbDir: string;
  recordFile: string;
  portFile: string;
  cfg: DatabaseConfig;
  log: Log;
}

export async function launchDatabase(opts: LaunchOptions): Promise<LaunchedDatabase> {
  const { database: cfg, log } = opts;
  if (cfg.uri) {
    return {
      kind: 'external',
      uri: cfg.uri,
      description: `MongoDB at ${redact(cfg.uri)} (MONGODB_URI)`,
      owned: false,
      stop: async () => {},
    };
  }
  const dbDir = path.join(opts.dataDir, 'db');
  fs.mkdirSync(dbDir, { recursive: true });
  const place: Place = {
    dbDir,
    recordFile: path.join(dbDir, 'server.json'),
    portFile: path.join(dbDir, 'port'),
    cfg,
    log,
  };
  const settled = await withLock(place, () => settle(place, false));
  const db = new EmbeddedDatabase(place, settled);
  if (settled.outcome === 'shared' || settled.outcome === 'adopted') {
    db.description += ` (already running, pid ${db.pid})`;
  }
  return db;
}

interface Settled {
  record: ServerRecord;
  outcome: EnsureOutcome;
  /** The server's own stop, for one this process launched. */
  stopServer?: () => Promise<void>;
}

/** The database of one DATA_DIR as this process sees it; pid and owner follow the record. */
class EmbeddedDatabase implements LaunchedDatabase {
  kind: DatabaseKind;
  uri: string;
  description: string;
  owned: boolean;
  pid: number;
  ownerPid: number;
  private stopServer: (() => Promise<void>) | undefined;

  constructor(
    private readonly place: Place,
    settled: Settled,
  ) {
    this.kind = settled.record.kind;
    this.uri = settled.record.uri;
    this.description = settled.record.description;
    this.owned = false;
    this.pid = settled.record.pid;
    this.ownerPid = settled.record.ownerPid;
    this.apply(settled);
    // mongodb-memory-server manages its own process: nothing here can relaunch it.
    if (this.kind !== 'memory-server') this.ensure = () => this.resettle();
  }

  ensure?: () => Promise<EnsureOutcome>;

  private apply(s: Settled): void {
    if (s.outcome === 'launched') this.stopServer = s.stopServer;
    else if (s.record.pid !== this.pid) this.stopServer = undefined;
    this.uri = s.record.uri;
    this.pid = s.record.pid;
    this.ownerPid = s.record.ownerPid;
    this.owned = s.record.ownerPid === process.pid;
  }

  private async resettle(): Promise<EnsureOutcome> {
    const settled = await withLock(this.place, () => settle(this.place, true, Number(new URL(this.uri).port)));
    this.apply(settled);
    return settled.outcome;
  }

  async stop(): Promise<void> {
    if (!this.owned) return;
    const now = readRecord(this.place.recordFile);
    // Another process took the server over meanwhile (it judged this one gone): it is theirs now.
    if (now && now.pid === this.pid && now.ownerPid !== process.pid && isAlive(now.ownerPid)) {
      this.owned = false;
      return;
    }
    await (this.stopServer ? this.stopServer() : stopPid(this.pid));
    this.owned = false;
    const after = readRecord(this.place.recordFile);
    if (after && after.pid === this.pid) fs.rmSync(this.place.recordFile, { force: true });
  }
}

/**
 * The one decision, taken holding the lock: reuse the recorded server if it answers (adopting it
 * when its owner is gone), otherwise launch one — on the port it had, when `keepPort` demands it
 * or that port is free.
 */
async function settle(place: Place, keepPort: boolean, currentPort?: number): Promise<Settled> {
  const existing = readRecord(place.recordFile);
  if (existing && isAlive(existing.pid)) {
    if (await answers(existing.uri)) {
      if (existing.ownerPid === process.pid) return { record: existing, outcome: 'running' };
      if (!existing.ownerPid || !isAlive(existing.ownerPid)) {
        const record: ServerRecord = { ...existing, ownerPid: process.pid, adoptedAt: new Date().toISOString() };
        writeRecord(place.recordFile, record);
        place.log(`Adopted the database (pid ${existing.pid}) whose owner, process ${existing.ownerPid}, is gone`);
        return { record, outcome: 'adopted' };
      }
      return { record: existing, outcome: 'shared' };
    }
    // Alive but not answering: a hung server of this DATA_DIR (stop it: it holds the files), or a
    // recycled pid that belongs to something else entirely (leave it alone).
    if (commandLine(existing.pid).some((arg) => arg.includes(place.dbDir))) await stopPid(existing.pid);
  }
  fs.rmSync(place.recordFile, { force: true });
  const port = (existing ? Number(new URL(existing.uri).port) : undefined) ?? readPort(place.portFile) ?? currentPort;
  let provisional: ServerRecord | undefined;
  const launched = await startLocalServer(place.dbDir, place.cfg, place.log, {
    port,
    keepPort,
    // Recorded the moment it exists: if this process dies before the server answers, the next
    // one finds (and adopts or stops) it instead of leaving it behind holding the files and port.
    onSpawn: (kind, pid, uri) => {
      provisional = { kind, uri, pid, ownerPid: process.pid, description: kind, startedAt: new Date().toISOString() };
      writeRecord(place.recordFile, provisional);
    },
  });
  const record: ServerRecord = {
    kind: launched.kind,
    uri: launched.uri,
    pid: launched.pid,
    ownerPid: process.pid,
    description: launched.description,
    startedAt: provisional?.startedAt ?? new Date().toISOString(),
  };
  writeRecord(place.recordFile, record);
  fs.writeFileSync(place.portFile, String(new URL(launched.uri).port));
  return { record, outcome: 'launched', stopServer: launched.stop };
}

async function answers(uri: string): Promise<boolean> {
  try {
    await waitForPort(Number(new URL(uri).port), 2000);
    return true;
  } catch {
    return false;
  }
}

async function withLock<T>(place: Place, fn: () => Promise<T>): Promise<T> {
  const release = await acquireLaunchLock(place.dbDir, (pid) =>
    place.log(`waiting for process ${pid}, which is launching the database in ${place.dbDir} …`),
  );
  try {
    return await fn();
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

interface PortChoice {
  /** The port to listen on when it is free (the one this DATA_DIR's server had). */
  port?: number;
  /** Fail rather than move to another port (a relaunch: connected clients know only this one). */
  keepPort: boolean;
  onSpawn(kind: DatabaseKind, pid: number, uri: string): void;
}

async function startLocalServer(dbDir: string, cfg: DatabaseConfig, log: Log, choice: PortChoice): Promise<Started> {
  const tried: string[] = [];

  const mongod = cfg.mongodBin ?? whichSync('mongod', cfg.searchPath);
  if (mongod) {
    return startProcess('mongod', mongod, dbDir, log, choice, (port, dir) => [
      '--dbpath',
      dir,
      '--bind_ip',
      '127.0.0.1',
      '--port',
      String(port),
    ]);
  }
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
      tried.push(
        `FerretDB ${FERRETDB_VERSION}: FERRETDB_BIN unset, no cached build in ${cfg.cacheDir}, no \`go\` ` +
          `on PATH to build one`,
      );
    }
  }
  if (ferret) {
    // Our build syncs SQLite's WAL as MongoDB syncs its journal (patch 0016: every 100 ms, and before
    // answering a write with j: true), so its commits need not each wait for an fsync; any other
    // FerretDB keeps SQLite's default, an fsync per commit.
    const pragmas = isAgoraBuild(ferret) ? '?_pragma=synchronous(normal)' : '';
    return startProcess('ferretdb', ferret, dbDir, log, choice, (port, dir) => [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/${pragmas}`,
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
      '\nSet MONGODB_URI to a MongoDB server, put `mongod` on PATH (or set MONGOD_BIN), set FERRETDB_BIN ' +
      'to a FerretDB 1.24 binary, or install Go so FerretDB can be built.',
  );
}

async function startProcess(
  kind: 'mongod' | 'ferretdb',
  bin: string,
  dbDir: string,
  log: Log,
  choice: PortChoice,
  args: (port: number, dir: string) => string[],
): Promise<Started> {
  const dir = path.join(dbDir, kind);
  fs.mkdirSync(dir, { recursive: true });
  const port = await choosePort(choice);
  // FerretDB spends much of its CPU in Go's garbage collector while decoding documents: collecting
  // a quarter as often answers listings faster for a little more heap (bench/api.js, listings).
  const env = kind === 'ferretdb' ? { ...process.env, GOGC: '400' } : process.env;
  const child = startServer(bin, args(port, dir), path.join(dbDir, `${kind}.log`), env);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${bin}`);
  choice.onSpawn(kind, pid, `mongodb://127.0.0.1:${port}`);
  try {
    // FerretDB with Agora's patch 0007 rebuilds, once, the indexes a database made by an earlier build
    // has (sortable columns; docs/embedded-database.md) before it listens: a minute or two for the
    // bench's 100,000 comments. A process that dies is noticed at once (waitForPort watches the child).
    await waitForPort(port, kind === 'ferretdb' ? 600_000 : 30_000, child);
  } catch (err) {
    await stopPid(pid);
    throw new Error(
      `${kind} at ${bin} did not start: ${(err as Error).message} (see ${path.join(dbDir, `${kind}.log`)})`,
      {
        cause: err,
      },
    );
  }
  child.unref();
  const label =
    kind === 'ferretdb' ? `FerretDB ${ferretdbBuildName(bin)} (SQLite in ${dir})` : `mongod (${bin}, data in ${dir})`;
  log(`Started ${label} on 127.0.0.1:${port}`);
  return { kind, uri: `mongodb://127.0.0.1:${port}`, description: label, pid, stop: () => stopPid(pid) };
}

const MEMORY_SERVER_TIMEOUT_MS = 300_000;

async function startMemoryServer(dbDir: string, log: Log): Promise<Started> {
  let mod: {
    MongoMemoryServer: {
      create(o: unknown): Promise<{
        getUri(): string;
        stop(): Promise<boolean>;
        instanceInfo?: { instance?: { mongodProcess?: { pid?: number } } };
      }>;
    };
  };
  try {
    // An optional package, loaded only when this fallback is used.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
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
    timer = setTimeout(
      () => reject(new Error(`no MongoDB binary within ${MEMORY_SERVER_TIMEOUT_MS / 1000} s (download unreachable?)`)),
      MEMORY_SERVER_TIMEOUT_MS,
    );
    timer.unref();
  });
  const server = await Promise.race([
    mod.MongoMemoryServer.create({ instance: { dbPath: dir, storageEngine: 'wiredTiger', ip: '127.0.0.1' } }),
    timeout,
  ]).finally(() => clearTimeout(timer));
  const uri = server.getUri().replace(/\/[^/]*$/, '');
  return {
    kind: 'memory-server',
    uri,
    description: `mongodb-memory-server (data in ${dir})`,
    pid: server.instanceInfo?.instance?.mongodProcess?.pid ?? process.pid,
    stop: async () => void (await server.stop()),
  };
}

/**
 * The remembered port if it is free (waiting up to 3 s for it: a port that just closed may still
 * be held for a moment), else — unless the port must be kept — any free one.
 */
async function choosePort(choice: PortChoice): Promise<number> {
  if (choice.port) {
    const deadline = Date.now() + 3000;
    for (;;) {
      if (await portIsFree(choice.port)) return choice.port;
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (choice.keepPort) throw new Error(`port ${choice.port} is in use by another process`);
  }
  return freePort();
}

function readPort(file: string): number | undefined {
  try {
    const port = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

function writeRecord(file: string, record: ServerRecord): void {
  // Written whole then renamed: a reader (another process deciding whether to adopt) never sees
  // half a record.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(record, null, 2));
  fs.renameSync(tmp, file);
}

function readRecord(file: string): ServerRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ServerRecord;
  } catch {
    return undefined;
  }
}

function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, '//***@');
}
