/**
 * A wrong-key flood beside a download (issue 43): does KDF work starve other clients' file I/O?
 *
 * `npm run build && node bench/kdf-flood.js` starts the embedded database and the built server,
 * uploads a 1 MiB file and a file protected by a client-chosen access key, then alternates two
 * phases, BENCH_KDF_ROUNDS times (default 3):
 *   - quiet: one client downloads the 1 MiB file, one at a time, at least BENCH_KDF_DOWNLOADS times
 *     (default 40) and for at least BENCH_KDF_SECONDS (default 5);
 *   - flood: BENCH_KDF_CONNECTIONS (default 20) keep-alive connections from another client read the
 *     protected file with wrong keys as fast as they are answered; after a second, the same downloads.
 * It prints the download's p50 per phase (medians over the rounds), their ratio, what the flood
 * got (401: a key checked with scrypt; 429: refused before it) and the server's CPU seconds per
 * phase (from /proc). Each configuration runs in turn: the defaults (FILES_KEY_CHECK_LIMIT 30 per
 * address), and the wrong-key limit off (FILES_KEY_CHECK_LIMIT=0: every wrong key runs scrypt, so
 * only the KDF pool stands between the flood and file I/O).
 *
 * BENCH_KDF_BASELINE_MAIN=<dir>/dist/main.js also runs another build (e.g. main before issue 43,
 * whose scrypt ran on libuv's pool) through the same phases, taking turns with this one.
 * Everything is on loopback and bounded: the flood ends with its phase's downloads.
 */
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { startDatabase, startAgora, tempDir } = require('./lib/agora');
const { median, round } = require('./lib/stats');

const ROUNDS = Number(process.env.BENCH_KDF_ROUNDS ?? 3);
const DOWNLOADS = Number(process.env.BENCH_KDF_DOWNLOADS ?? 40);
const CONNECTIONS = Number(process.env.BENCH_KDF_CONNECTIONS ?? 20);
const SECONDS = Number(process.env.BENCH_KDF_SECONDS ?? 5);
const WARM_UP_MS = 1000;
const MiB = 1024 * 1024;

function send(url, { method = 'GET', headers = {}, body, agent = false } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (d) => (bytes += d.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function downloads(url) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  const started = Date.now();
  for (let i = 0; i < DOWNLOADS || Date.now() - started < SECONDS * 1000; i++) {
    const t0 = process.hrtime.bigint();
    const r = await send(`${url}/selif/big.bin`, { agent });
    if (r.status !== 200 || r.bytes !== MiB) throw new Error(`download: ${r.status}, ${r.bytes} bytes`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  agent.destroy();
  return median(times);
}

async function flood(url, until) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const statuses = {};
  let n = 0;
  let done = false;
  until.finally(() => (done = true));
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (!done) {
        const r = await send(`${url}/selif/locked.txt`, { agent, headers: { 'files-access-key': `wrong ${n++}` } });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  return statuses;
}

async function setUp(target, db, workDir) {
  const server = await startAgora({
    mongoUri: `${db.uri.replace(/\/$/, '')}/agora_kdf_${target.name.replace(/\W/g, '_')}`,
    dataDir: path.join(workDir, target.name.replace(/\W/g, '_')),
    env: target.env,
    main: target.main,
  });
  const put = (name, body, headers = {}) =>
    send(`${server.url}/upload/${name}`, {
      method: 'PUT',
      headers: { accept: 'application/json', 'content-length': body.length, ...headers },
      body,
    });
  if ((await put('big.bin', Buffer.alloc(MiB, 0x61))).status !== 200) throw new Error('upload of big.bin failed');
  const locked = await put('locked.txt', Buffer.from('secret'), { 'files-access-key': 'the right key' });
  if (locked.status !== 200) throw new Error('upload of locked.txt failed');
  return { ...target, server, quiet: [], flooded: [], cpuQuiet: [], cpuFlood: [], statuses: {} };
}

async function round1(t) {
  let cpu = cpuSeconds(t.server.pid);
  t.quiet.push(await downloads(t.server.url));
  t.cpuQuiet.push(cpuSeconds(t.server.pid) - cpu);
  cpu = cpuSeconds(t.server.pid);
  let measured;
  const started = new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
  const ended = started.then(() => (measured = downloads(t.server.url)));
  const [, statuses] = await Promise.all([
    ended,
    flood(
      t.server.url,
      ended.then(() => measured),
    ),
  ]);
  const p50 = await measured;
  t.flooded.push(p50);
  t.cpuFlood.push(cpuSeconds(t.server.pid) - cpu);
  for (const [k, v] of Object.entries(statuses)) t.statuses[k] = (t.statuses[k] ?? 0) + v;
}

async function main() {
  const workDir = tempDir('agora-kdf-flood-');
  const db = await startDatabase(path.join(workDir, 'db'));
  const targets = [
    { name: 'this build, defaults', env: {} },
    { name: 'this build, FILES_KEY_CHECK_LIMIT=0', env: { FILES_KEY_CHECK_LIMIT: '0' } },
  ];
  if (process.env.BENCH_KDF_BASELINE_MAIN)
    targets.push({ name: 'baseline build', env: {}, main: path.resolve(process.env.BENCH_KDF_BASELINE_MAIN) });
  const running = [];
  try {
    for (const t of targets) running.push(await setUp(t, db, workDir));
    // The configurations take turns, round by round, so a change in the machine's load meets them all.
    for (let r = 0; r < ROUNDS; r++) for (const t of running) await round1(t);
    const rows = running.map((t) => ({
      target: t.name,
      quietP50Ms: round(median(t.quiet), 2),
      floodP50Ms: round(median(t.flooded), 2),
      ratio: round(median(t.flooded) / median(t.quiet), 2),
      serverCpuSecondsQuiet: round(median(t.cpuQuiet), 2),
      serverCpuSecondsFlood: round(median(t.cpuFlood), 2),
      floodAnswers: t.statuses,
    }));
    console.log(JSON.stringify({ rounds: ROUNDS, downloads: DOWNLOADS, connections: CONNECTIONS, rows }, null, 2));
  } finally {
    for (const t of running) await t.server.stop();
    await db.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
