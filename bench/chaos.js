#!/usr/bin/env node
/**
 * Chaos run (issue 18): the built server on the embedded default (it launches FerretDB itself,
 * nothing else supervises it), mixed traffic from 50 connections — REST and GraphQL reads,
 * comments, votes, uploads, downloads — while the database process is SIGKILLed every 30 s and the
 * server process is SIGKILLed and started again (same DATA_DIR and port) every 60 s, 15 s out of
 * step with the database kills. Afterwards it checks, against what the server acknowledged:
 *
 *   - every acknowledged upload readable, with its SHA-256; every file's bytes as long as its
 *     metadata says; no temporary (partial) upload files left after the last shutdown;
 *   - every acknowledged comment present, every acknowledged vote present (as its voter sees it);
 *   - counts consistent: each topic's comment_count against its comments, each comment's votes
 *     against the voters who see their vote; measured as the run left them (a server killed between a
 *     change and its one `$inc` leaves that count one off: the change was never acknowledged), then
 *     `counts:verify` (the operators' recount command) reports the drift and `--fix` must leave none;
 *   - no database or server process of the run left after the final Ctrl-C (SIGINT);
 *   - the time from each kill until /readyz answers 200 again (p50, max).
 *
 *   npm run build && node bench/chaos.js
 *   CHAOS_SECONDS=240 CHAOS_CONNECTIONS=50 CHAOS_DB_KILL_EVERY=30 CHAOS_SERVER_KILL_EVERY=60   (defaults)
 *   CHAOS_DEBUG=1   logs each /readyz refusal, runs the servers at LOG_LEVEL=debug, keeps DATA_DIR
 *
 * About five minutes in all; not part of `npm test`. Writes bench/results/chaos.json and chaos.md.
 * Exit 0: nothing lost and everything consistent; 1: any loss, inconsistency, partial file, left
 * process, 5xx other than 503/507, or a kill after which the server was not ready within 120 s;
 * 2: the run could not be set up. Needs the FerretDB build (or `go` to build it), like `npm start`.
 */
'use strict';
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { ROOT, DIST, tempDir } = require('./lib/agora');
const { mulberry32 } = require('./lib/random');

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 240);
const CONNECTIONS = Number(process.env.CHAOS_CONNECTIONS ?? 50);
const DB_KILL_EVERY = Number(process.env.CHAOS_DB_KILL_EVERY ?? 30);
const SERVER_KILL_EVERY = Number(process.env.CHAOS_SERVER_KILL_EVERY ?? 60);
/** Server kills happen this long after a database kill, so each kill's recovery is timed alone. */
const SERVER_KILL_OFFSET = 15;
const TIMEOUT_MS = 10_000;
/**
 * A kill after which /readyz is not 200 within this long fails the run: the server did not recover.
 * Slower recoveries are only reported: a freshly started server is saturated at once by the 50
 * connections waiting for it, and its /readyz queues behind their requests (on an overloaded
 * machine that took up to a minute).
 */
const READY_LIMIT_MS = 120_000;
const USERS = ['alice', 'bob', 'carol', 'dave'];
const log = (m) => process.stderr.write(`[chaos] ${m}\n`);
const POST_COMMENT = 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id36 } } }';

// ---------------------------------------------------------------------------------------------
// HTTP

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
let baseUrl = '';

/** One request; resolves { status, body } or { error } (connection refused/reset, timeout). */
function request(method, pathname, { headers = {}, body, fresh = false } = {}) {
  return new Promise((resolve) => {
    const options = { method, headers, agent: fresh ? false : agent, timeout: TIMEOUT_MS };
    const req = http.request(`${baseUrl}${pathname}`, options, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
      res.on('error', (err) => resolve({ error: err.code ?? err.message }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

function json(res) {
  try {
    return JSON.parse(res.body.toString());
  } catch {
    return undefined;
  }
}

async function gql(query, variables, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await request('POST', '/graphql', { headers, body: JSON.stringify({ query, variables }) });
  return { ...res, json: res.status ? json(res) : undefined };
}

const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Processes

const dataDir = tempDir('agora-chaos-');
let port = 0;
let server; // { child, pid, exited }
let serverStarts = 0;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const p = srv.address().port;
      srv.close(() => resolve(p));
    });
  });
}

function serverEnv() {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
    ...(process.env.AGORA_CACHE_DIR ? { AGORA_CACHE_DIR: process.env.AGORA_CACHE_DIR } : {}),
    ...(process.env.FERRETDB_BIN ? { FERRETDB_BIN: process.env.FERRETDB_BIN } : {}),
    NODE_ENV: 'development', // the demo data (seeded once, on the first start) needs it
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.CHAOS_DEBUG ? 'debug' : 'info',
    DEMO_SEED: 'true',
    JWT_SECRET: 'chaos-secret-0123456789-0123456789-0123456789',
    FILES_CLEANUP_INTERVAL: '0',
    // One client address sends everything: no per-address limits.
    LOGIN_RATE_LIMIT: '1000000',
    FILES_UPLOAD_RATE_LIMIT: '0',
    REGISTRATION_RATE_LIMIT: '0',
    TOPIC_RATE_LIMIT: '0',
    COMMENT_RATE_LIMIT: '0',
    VOTE_RATE_LIMIT: '0',
    LABEL_RATE_LIMIT: '0',
  };
}

/** Starts `node dist/main.js`; resolves once it listens. Its output goes to DATA_DIR/server-N.log. */
function startServer() {
  const n = ++serverStarts;
  const out = fs.openSync(path.join(dataDir, `server-${n}.log`), 'a');
  const child = spawn(process.execPath, [path.join(DIST, 'main.js')], {
    cwd: ROOT,
    env: serverEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal)));
  return new Promise((resolve, reject) => {
    let text = '';
    let listening = false;
    const onData = (d) => {
      fs.writeSync(out, d);
      if (listening) return;
      text += d.toString();
      if (/listening on http/.test(text)) {
        listening = true;
        resolve({ child, pid: child.pid, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      fs.closeSync(out);
      if (!listening) reject(new Error(`server ${n} exited (${code}) before listening:\n${text.slice(-3000)}`));
    });
  });
}

function record() {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'db', 'server.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return true;
  }
}

/** Live processes whose command line names this run's DATA_DIR (databases), or that are its servers. */
function leftProcesses() {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmd;
    let env;
    try {
      cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      env = cmd.includes('dist/main.js') ? fs.readFileSync(`/proc/${entry}/environ`, 'utf8') : '';
    } catch {
      continue;
    }
    const ours = cmd.includes(dataDir) || env.includes(`DATA_DIR=${dataDir}\0`);
    if (ours && alive(Number(entry))) found.push(`${entry} ${cmd.split('\0').join(' ').slice(0, 120)}`);
  }
  return found;
}

/** Milliseconds from `since` until /readyz answers 200 (fresh connections), or Infinity after the limit. */
async function readyAfter(since) {
  while (Date.now() - since < READY_LIMIT_MS) {
    const asked = Date.now();
    const r = await request('GET', '/readyz', { fresh: true });
    if (r.status === 200) return Date.now() - since;
    if (process.env.CHAOS_DEBUG)
      log(`/readyz after ${asked - since} ms: ${r.status ?? r.error} in ${Date.now() - asked} ms ${r.body ?? ''}`);
    await sleep(50);
  }
  return Infinity;
}

// ---------------------------------------------------------------------------------------------
// Traffic

const acked = { uploads: [], comments: [], votes: [] };
const outcomes = {}; // kind → { ok, 503, 507, conn, timeout, other: {status: n} }
const wrong = []; // answers that are wrong whatever happened (a 500, a corrupt download, …)
const tokens = {};
let topics = [];
let stopTraffic = false;

function count(kind, res, ok) {
  const o = (outcomes[kind] ??= { ok: 0, s503: 0, s507: 0, conn: 0, timeout: 0, other: {} });
  if (ok) o.ok++;
  else if (res.error === 'TIMEOUT') o.timeout++;
  else if (res.error) o.conn++;
  else if (res.status === 503) o.s503++;
  else if (res.status === 507) o.s507++;
  else {
    o.other[res.status] = (o.other[res.status] ?? 0) + 1;
    if (res.status >= 500 && wrong.length < 50) {
      wrong.push(`${kind}: ${res.status} ${res.body.toString().slice(0, 200)}`);
    }
  }
}

async function op(r) {
  const x = r();
  if (x < 0.1) {
    const res = await request('GET', `/api/beta/topics?limit=${1 + Math.floor(r() * 50)}`);
    return count('REST listing', res, res.status === 200);
  }
  if (x < 0.2) {
    const id = topics[Math.floor(r() * topics.length)];
    const user = USERS[Math.floor(r() * USERS.length)];
    const headers = r() < 0.5 ? { authorization: `Bearer ${tokens[user]}` } : {};
    const res = await request('GET', `/api/beta/topic/${id}`, { headers });
    return count('REST topic', res, res.status === 200);
  }
  if (x < 0.3) {
    const res = await gql('query($n: Int) { topics(first: $n) { edges { node { id title commentCount } } } }', {
      n: 20,
    });
    return count('GraphQL topics', res, res.status === 200 && !res.json?.errors);
  }
  if (x < 0.5) {
    const user = USERS[Math.floor(r() * USERS.length)];
    const topic = topics[Math.floor(r() * topics.length)];
    const text = `chaos ${crypto.randomBytes(6).toString('hex')}`;
    const res = await gql(POST_COMMENT, { t: topic, m: text }, tokens[user]);
    const id = res.status === 200 && !res.json?.errors ? res.json?.data?.postComment?.comment?.id36 : undefined;
    if (id) acked.comments.push({ id, topic, user, text });
    return count('comment', res, Boolean(id));
  }
  if (x < 0.65) {
    if (acked.comments.length === 0) return;
    const c = acked.comments[Math.floor(r() * acked.comments.length)];
    const voters = USERS.filter((u) => u !== c.user);
    const voter = voters[Math.floor(r() * voters.length)];
    const res = await gql(
      'mutation($id: ID!) { voteComment(id: $id) { id viewerHasVoted } }',
      { id: c.id },
      tokens[voter],
    );
    const ok = res.status === 200 && !res.json?.errors && res.json?.data?.voteComment?.viewerHasVoted === true;
    if (ok) acked.votes.push({ comment: c.id, topic: c.topic, voter });
    return count('vote', res, ok);
  }
  if (x < 0.8) {
    const bytes = crypto.randomBytes(1 + Math.floor(r() * 64 * 1024));
    const name = `chaos-${crypto.randomBytes(4).toString('hex')}.bin`;
    const res = await request('PUT', `/upload/${name}`, { headers: { accept: 'application/json' }, body: bytes });
    const stored = res.status === 200 ? json(res)?.filename : undefined;
    if (stored) acked.uploads.push({ name: stored, sha256: sha256(bytes), size: bytes.length });
    return count('upload', res, Boolean(stored));
  }
  if (acked.uploads.length === 0) return;
  const f = acked.uploads[Math.floor(r() * acked.uploads.length)];
  const res = await request('GET', `/selif/${f.name}`);
  if (res.status === 200 && sha256(res.body) !== f.sha256) {
    wrong.push(`download ${f.name}: ${res.body.length} bytes, not the ${f.size} uploaded`);
  }
  if (res.status === 404) wrong.push(`download ${f.name}: 404 for an acknowledged upload`);
  count('download', res, res.status === 200);
}

async function worker(seed) {
  const r = mulberry32(seed);
  while (!stopTraffic) {
    const before = Object.values(outcomes).reduce((n, o) => n + o.conn + o.timeout, 0);
    await op(r);
    // The server is down (killed, starting again): do not spin on refused connections.
    if (Object.values(outcomes).reduce((n, o) => n + o.conn + o.timeout, 0) > before) await sleep(200);
  }
}

// ---------------------------------------------------------------------------------------------
// Checks

/** Every comment of a topic as `user` sees it (flattened), and the topic. */
async function topicAs(id, user) {
  const headers = user ? { authorization: `Bearer ${tokens[user]}` } : {};
  const res = await request('GET', `/api/beta/topic/${id}`, { headers, fresh: true });
  if (res.status !== 200) throw new Error(`GET /api/beta/topic/${id} as ${user}: ${res.status ?? res.error}`);
  const body = json(res);
  const byId = new Map();
  const walk = (list) => list.forEach((c) => (byId.set(c.id, c), walk(c.children ?? [])));
  walk(body.comments);
  return { topic: body.topic, comments: byId };
}

/** Posts whose counts differ from their recount: [{ what, topic, comment?, author? }]. */
async function countMismatches() {
  const out = [];
  for (const id of topics) {
    const views = {};
    for (const u of USERS) views[u] = await topicAs(id, u);
    const { topic, comments } = views[USERS[0]];
    if (topic.comment_count !== comments.size) {
      out.push({ what: `topic ${id}: comment_count ${topic.comment_count}, ${comments.size} comments`, topic: id });
    }
    for (const [cid, c] of comments) {
      const voters = USERS.filter((u) => views[u].comments.get(cid)?.voted);
      if (c.votes === voters.length) continue;
      const what = `comment ${cid}: votes ${c.votes}, ${voters.length} voters`;
      out.push({ what, topic: id, comment: cid, voters, author: c.author });
    }
  }
  return out;
}

/**
 * The operators' recount (`cli counts:verify`, then `--fix`) on this run's DATA_DIR, beside the
 * running server: it shares the database the server launched. Returns what it printed and its exit code.
 */
function countsVerify(fix) {
  const args = [path.join(DIST, 'cli', 'main.js'), 'counts:verify', ...(fix ? ['--fix'] : [])];
  const r = require('node:child_process').spawnSync(process.execPath, args, {
    env: { ...serverEnv(), LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

async function verify() {
  const failures = [];
  // Uploads: each acknowledged one readable, byte for byte.
  let uploadsOk = 0;
  for (const f of acked.uploads) {
    const res = await request('GET', `/selif/${f.name}`, { fresh: true });
    if (res.status === 200 && sha256(res.body) === f.sha256) uploadsOk++;
    else failures.push(`upload ${f.name}: ${res.status ?? res.error}${res.status === 200 ? ' with other bytes' : ''}`);
  }
  // Comments and votes: each acknowledged one present, as its author / voter sees it.
  const seen = {};
  for (const id of topics) for (const u of USERS) seen[`${id}/${u}`] = (await topicAs(id, u)).comments;
  let commentsOk = 0;
  for (const c of acked.comments) {
    if (seen[`${c.topic}/${c.user}`].has(c.id)) commentsOk++;
    else failures.push(`comment ${c.id} on topic ${c.topic} (by ${c.user}) is missing`);
  }
  let votesOk = 0;
  for (const v of acked.votes) {
    if (seen[`${v.topic}/${v.voter}`].get(v.comment)?.voted === true) votesOk++;
    else failures.push(`vote of ${v.voter} on comment ${v.comment} is missing`);
  }
  // Counts as the run left them, then the recount command, whose --fix must leave no drift.
  const countsAsLeft = await countMismatches();
  const verified = countsVerify(false);
  if (verified.code !== 0 && verified.code !== 1)
    failures.push(`counts:verify: exit ${verified.code}: ${verified.out}`);
  console.log(`counts:verify as the run left them: ${verified.out.split('\n').pop()}`);
  const fixed = countsVerify(true);
  if (fixed.code !== 0) failures.push(`counts:verify --fix: exit ${fixed.code}: ${fixed.out}`);
  if (countsVerify(false).code !== 0) failures.push('counts:verify after --fix still finds drift');
  const countsAfter = await countMismatches();
  for (const m of countsAfter) failures.push(`count: ${m.what}`);
  const what = (list) => list.map((m) => m.what);
  return { failures, uploadsOk, commentsOk, votesOk, countsAsLeft: what(countsAsLeft), countsAfter: what(countsAfter) };
}

/** Every file's metadata against its bytes on disk, read straight from the database. */
async function checkFiles() {
  // The driver mongoose brings (not a dependency of its own).
  const { MongoClient } = require('mongoose').mongo;
  const rec = record();
  const client = await MongoClient.connect(`${rec.uri}/agora`, { serverSelectionTimeoutMS: 5000 });
  const problems = [];
  const referenced = new Set();
  try {
    for await (const doc of client
      .db()
      .collection('files')
      .find({}, { projection: { objectId: 1, size: 1 } })) {
      referenced.add(doc.objectId);
      const file = path.join(dataDir, 'files', 'objects', doc.objectId.slice(0, 2), doc.objectId);
      const size = fs.existsSync(file) ? fs.statSync(file).size : -1;
      if (size !== doc.size) {
        problems.push(`file ${doc._id}: metadata says ${doc.size} bytes, the store has ${size < 0 ? 'none' : size}`);
      }
    }
  } finally {
    await client.close();
  }
  let unreferenced = 0;
  const objects = path.join(dataDir, 'files', 'objects');
  for (const d of fs.readdirSync(objects)) {
    for (const id of fs.readdirSync(path.join(objects, d))) if (!referenced.has(id)) unreferenced++;
  }
  return { problems, files: referenced.size, unreferenced };
}

// ---------------------------------------------------------------------------------------------

function percentile(values, p) {
  const v = [...values].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)] : NaN;
}

async function main() {
  if (!fs.existsSync(path.join(DIST, 'main.js'))) {
    log('dist/main.js is missing: run `npm run build` first');
    process.exit(2);
  }
  port = await freePort();
  log(
    `DATA_DIR ${dataDir}, port ${port}: ${SECONDS} s of traffic at ${CONNECTIONS} connections, ` +
      `the database killed every ${DB_KILL_EVERY} s, the server every ${SERVER_KILL_EVERY} s`,
  );
  try {
    server = await startServer();
  } catch (err) {
    log(err.message);
    process.exit(2);
  }
  baseUrl = `http://127.0.0.1:${port}`;
  await readyAfter(Date.now());
  for (const u of USERS) {
    const res = await request('POST', '/api/beta/login', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: u, password: 'demo-password' }),
    });
    tokens[u] = json(res)?.token;
    if (!tokens[u]) throw new Error(`login ${u}: ${res.status}`);
  }
  topics = json(await request('GET', '/api/beta/topics?limit=100')).topics.map((t) => t.id);
  log(`${topics.length} topics, ${USERS.length} users; traffic starts`);

  const kills = [];
  const started = Date.now();
  const workers = Array.from({ length: CONNECTIONS }, (_, i) => worker(1000 + i));
  const events = [];
  for (let t = DB_KILL_EVERY; t < SECONDS - 10; t += DB_KILL_EVERY) events.push({ t, kind: 'database' });
  const firstServerKill = SERVER_KILL_EVERY - DB_KILL_EVERY + SERVER_KILL_OFFSET;
  for (let t = firstServerKill; t < SECONDS - 10; t += SERVER_KILL_EVERY) events.push({ t, kind: 'server' });
  events.sort((a, b) => a.t - b.t);
  for (const e of events) {
    await sleep(Math.max(0, started + e.t * 1000 - Date.now()));
    const at = Date.now();
    if (e.kind === 'database') {
      const pid = record()?.pid;
      if (!pid || !alive(pid)) {
        kills.push({ ...e, pid, ms: NaN, note: 'no live database to kill' });
        continue;
      }
      process.kill(pid, 'SIGKILL');
      const ms = await readyAfter(at);
      kills.push({ ...e, pid, ms });
      log(`t=${e.t}s killed the database (pid ${pid}): ready again after ${ms} ms`);
    } else {
      const pid = server.pid;
      process.kill(pid, 'SIGKILL');
      await server.exited;
      server = await startServer();
      const listeningMs = Date.now() - at;
      const ms = await readyAfter(at);
      kills.push({ ...e, pid, ms, listeningMs });
      log(
        `t=${e.t}s killed the server (pid ${pid}) and started it again (pid ${server.pid}): listening ` +
          `after ${listeningMs} ms, ready after ${ms} ms`,
      );
    }
  }
  await sleep(Math.max(0, started + SECONDS * 1000 - Date.now()));
  stopTraffic = true;
  await Promise.all(workers);
  const trafficSeconds = (Date.now() - started) / 1000;
  log(`traffic stopped after ${trafficSeconds.toFixed(0)} s; checking`);

  await readyAfter(Date.now());
  const checked = await verify();
  const files = await checkFiles();
  const failures = [...checked.failures, ...files.problems, ...wrong];
  for (const k of kills) {
    if (k.ms <= READY_LIMIT_MS) continue;
    failures.push(`not ready within ${READY_LIMIT_MS / 1000} s after the ${k.kind} kill at t=${k.t}s`);
  }

  // The final Ctrl-C: the server stops its database; nothing of the run may be left.
  server.child.kill('SIGINT');
  const exitCode = await server.exited;
  if (exitCode !== 0) failures.push(`the last server exited with ${exitCode} on SIGINT`);
  await sleep(500);
  const left = leftProcesses();
  for (const p of left) failures.push(`process left behind: ${p}`);
  const partial = fs.readdirSync(path.join(dataDir, 'files', 'tmp'));
  for (const p of partial) failures.push(`partial upload left: files/tmp/${p}`);
  const errorLines = fs
    .readdirSync(dataDir)
    .filter((f) => /^server-\d+\.log$/.test(f))
    .flatMap((f) => fs.readFileSync(path.join(dataDir, f), 'utf8').split('\n'))
    .filter((l) => /"level":50/.test(l) && !/relaunching the database failed/.test(l));

  const ms = (kind) => kills.filter((k) => k.kind === kind && Number.isFinite(k.ms)).map((k) => k.ms);
  const summary = {
    date: new Date().toISOString(),
    settings: {
      seconds: SECONDS,
      connections: CONNECTIONS,
      dbKillEvery: DB_KILL_EVERY,
      serverKillEvery: SERVER_KILL_EVERY,
    },
    trafficSeconds: Math.round(trafficSeconds),
    kills,
    readyMs: {
      database: { count: ms('database').length, p50: percentile(ms('database'), 50), max: Math.max(...ms('database')) },
      server: { count: ms('server').length, p50: percentile(ms('server'), 50), max: Math.max(...ms('server')) },
    },
    acknowledged: { uploads: acked.uploads.length, comments: acked.comments.length, votes: acked.votes.length },
    found: { uploads: checked.uploadsOk, comments: checked.commentsOk, votes: checked.votesOk },
    counts: { mismatchesAsLeft: checked.countsAsLeft, mismatchesAfterSettling: checked.countsAfter },
    files: { withMetadata: files.files, unreferencedObjects: files.unreferenced, partial: partial.length },
    processesLeft: left,
    outcomes,
    serverErrorLines: errorLines.length,
    failures,
    passed: failures.length === 0,
  };
  writeResults(summary, errorLines);
  const { uploads, comments, votes } = summary.acknowledged;
  const found = `${checked.uploadsOk}/${checked.commentsOk}/${checked.votesOk}`;
  log(`acknowledged: ${uploads} uploads, ${comments} comments, ${votes} votes; found ${found}`);
  const ready = (k) => {
    const r = summary.readyMs[k];
    return `p50 ${r.p50} ms, max ${r.max} ms (${r.count})`;
  };
  log(`ready after a database kill: ${ready('database')}; after a server kill: ${ready('server')}`);
  log(
    `counts off as the run left them: ${checked.countsAsLeft.length}; after counts:verify --fix: ` +
      `${checked.countsAfter.length}; ` +
      `unreferenced objects: ${files.unreferenced}; processes left: ${left.length}`,
  );
  if (failures.length) {
    log(`FAILED (${failures.length}):\n  ${failures.slice(0, 40).join('\n  ')}`);
    process.exitCode = 1;
  } else {
    log('passed: nothing acknowledged was lost');
    if (!process.env.CHAOS_DEBUG) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  agent.destroy();
}

function writeResults(s, errorLines) {
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  const samples = errorLines.slice(0, 10).map((l) => l.slice(0, 400));
  fs.writeFileSync(path.join(dir, 'chaos.json'), JSON.stringify({ ...s, serverErrorSamples: samples }, null, 2) + '\n');
  const others = (o) =>
    Object.entries(o.other)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ') || '–';
  const row = (kind, o) => `| ${kind} | ${o.ok} | ${o.s503} | ${o.s507} | ${o.conn} | ${o.timeout} | ${others(o)} |`;
  const md = [
    `# Chaos run, ${s.date}`,
    '',
    `${s.trafficSeconds} s of traffic at ${s.settings.connections} connections; the database SIGKILLed every ` +
      `${s.settings.dbKillEvery} s, the server SIGKILLed and restarted every ${s.settings.serverKillEvery} s. ` +
      `**${s.passed ? 'Passed' : 'FAILED'}.**`,
    '',
    '| Kill | Count | Ready again p50 | max |',
    '|---|---|---|---|',
    `| database | ${s.readyMs.database.count} | ${s.readyMs.database.p50} ms | ${s.readyMs.database.max} ms |`,
    `| server (restarted) | ${s.readyMs.server.count} | ${s.readyMs.server.p50} ms | ${s.readyMs.server.max} ms |`,
    '',
    '| Acknowledged | Count | Found afterwards |',
    '|---|---|---|',
    `| uploads (SHA-256 checked) | ${s.acknowledged.uploads} | ${s.found.uploads} |`,
    `| comments | ${s.acknowledged.comments} | ${s.found.comments} |`,
    `| votes | ${s.acknowledged.votes} | ${s.found.votes} |`,
    '',
    `Counts off as the run left them: ${s.counts.mismatchesAsLeft.length} (after \`counts:verify --fix\`: ` +
      `${s.counts.mismatchesAfterSettling.length}). Files with metadata: ${s.files.withMetadata}, ` +
      'their bytes all present and of the right size unless listed below; unreferenced objects (bytes committed by ' +
      'a server killed before its metadata write; removed by the sweeper after the grace period): ' +
      `${s.files.unreferencedObjects}; partial uploads left: ${s.files.partial}. Processes left after the final ` +
      `SIGINT: ${s.processesLeft.length}. Error lines logged by the servers: ${s.serverErrorLines}.`,
    '',
    '| Requests | answered | 503 | 507 | connection refused/reset | timeout | other |',
    '|---|---|---|---|---|---|---|',
    ...Object.entries(s.outcomes).map(([k, o]) => row(k, o)),
    '',
    ...(s.failures.length ? ['Failures:', '', ...s.failures.slice(0, 100).map((f) => `- ${f}`), ''] : []),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'chaos.md'), md);
}

main().catch((err) => {
  log(`error: ${err.stack ?? err}`);
  try {
    if (server) server.child.kill('SIGINT');
  } catch {
    /* gone */
  }
  process.exit(2);
});
