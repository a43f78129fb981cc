/**
 * Files benchmark: what users of a file host do, measured with one ordinary client (Node's fetch,
 * bench/lib/fetch-load.js: 8 workers, keep-alive) against every server in the same run: Agora, a
 * plain Node baseline (bench/baseline-server.js), the same baseline with an fsync before each
 * upload's answer (Agora makes every upload durable before it answers), and optionally an external
 * server with the linx-server API (BENCH_EXTERNAL_URL, see bench/run.js). For each server:
 *
 *   - 1 GiB uploads (one per run) and downloads (BIG_DOWNLOADS_PER_RUN per run), one at a time, and the
 *     server's peak RSS growth over them;
 *   - BENCH_ROUNDS rounds of: uploads of BENCH_DISTINCT_FILES distinct 1 MiB files (8 concurrent), each
 *     under a name of its own, then one download of each of those files (page cache warm, as after an
 *     upload), the servers taking turns every DOWNLOAD_TURN downloads after ROUND_WARM_FILES unmeasured
 *     ones each; Agora's ratios for these rows are the median of the ratios within each round;
 *   - downloads of one 1 MiB file over and over for BENCH_SECONDS (the hot-file figure);
 *
 * with the server's CPU ms per request from /proc (each thread's schedstat; for Agora also with the embedded
 * database's process added). Runs alternate between the servers, each run starting one further on
 * (A, B, C, then B, C, A …), so a change in the machine's load reaches them alike; only one server is
 * loaded at a time.
 */
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const load = require('./lib/fetch-load');
const { sampleRss } = require('./lib/memory');
const { median, round } = require('./lib/stats');

const MiB = 1024 * 1024;
/** Distinct files each server is warmed up with (see benchTargets). */
const WARM_FILES = 128;
/**
 * Uploads each server is warmed up with (those files, each 32 times), and downloads (each 32 times):
 * enough for Agora's JIT to reach its steady state (see benchTargets).
 */
const WARM_UPLOADS = 32 * WARM_FILES;
const WARM_DOWNLOADS = 32 * WARM_FILES;
/** Unmeasured downloads from every server before a round's measured ones (see benchTargets). */
const ROUND_WARM_FILES = 40;
/** Measured downloads per server before the next server's turn, within a round (see benchTargets). */
const DOWNLOAD_TURN = 100;
/** Downloads of the big file per upload run (see benchTargets). */
const BIG_DOWNLOADS_PER_RUN = 3;

function startBaseline(dir, extraArgs = []) {
  const child = spawn(process.execPath, [path.join(__dirname, 'baseline-server.js'), dir, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => {
      const m = /listening on (\S+)/.exec(d.toString());
      if (!m) return reject(new Error(`baseline: ${d}`));
      resolve({
        url: m[1],
        pid: child.pid,
        stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))),
      });
    });
  });
}

function makeFile(file, bytes) {
  if (fs.existsSync(file) && fs.statSync(file).size === bytes) return;
  const fd = fs.openSync(file, 'w');
  const block = crypto.randomBytes(MiB);
  for (let written = 0; written < bytes; written += MiB) fs.writeSync(fd, block, 0, Math.min(MiB, bytes - written));
  fs.closeSync(fd);
}

/** `count` distinct 1 MiB bodies: one random block, each copy stamped with its own tag. */
function distinctBodies(count, tag) {
  const block = crypto.randomBytes(MiB);
  return Array.from({ length: count }, (_, i) => {
    const b = Buffer.from(block);
    b.write(`${tag}-${i}-${crypto.randomUUID()}`, 0, 'latin1');
    return b;
  });
}

/**
 * Writes back what earlier phases left dirty in the page cache (`sync`), so each phase starts on an
 * idle disk: the baseline does not fsync, and gigabytes of its writes would otherwise be flushed
 * while the next server's uploads wait for their own fsync.
 */
function settleDisk() {
  try {
    execFileSync('sync', { stdio: 'ignore', timeout: 120_000 });
  } catch {
    /* no `sync` here: measure anyway */
  }
}

function check(r, what) {
  if (r.non2xx + r.errors > 0) {
    throw new Error(`${what}: ${r.non2xx} non-2xx, ${r.errors} errors; first: ${r.firstError}`);
  }
  return r;
}

/** Medians of single runs; server CPU ms per request from the run's /proc deltas. */
function summarize(runs) {
  return {
    requestsPerSecond: round(median(runs.map((r) => r.requestsPerSecond))),
    p50Ms: round(median(runs.map((r) => r.p50Ms)), 2),
    p99Ms: round(median(runs.map((r) => r.p99Ms)), 2),
    serverCpuMs: round(median(runs.map((r) => r.cpuMs)), 2),
    ...(runs[0].cpuMsWithDb !== undefined
      ? { serverCpuMsWithDb: round(median(runs.map((r) => r.cpuMsWithDb)), 2) }
      : {}),
    runs: runs.length,
    all: runs.map((r) => round(r.requestsPerSecond)),
    cpuAll: runs.map((r) => round(r.cpuMs, 2)),
  };
}

/**
 * One run made of consecutive turns (runOn results) against the same server: requests per second over
 * their summed time, percentiles over all their latencies, CPU per request weighted by requests.
 */
function mergeRuns(runs) {
  const requests = runs.reduce((a, r) => a + r.requests, 0);
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  const latencies = runs.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const perRequest = (pick) => runs.reduce((a, r) => a + pick(r) * r.requests, 0) / requests;
  return {
    requests,
    seconds,
    requestsPerSecond: requests / seconds,
    p50Ms: load.percentile(latencies, 50),
    p99Ms: load.percentile(latencies, 99),
    bodyBytes: runs.reduce((a, r) => a + r.bodyBytes, 0),
    cpuMs: perRequest((r) => r.cpuMs),
    ...(runs[0].cpuMsWithDb !== undefined ? { cpuMsWithDb: perRequest((r) => r.cpuMsWithDb) } : {}),
  };
}

/** MB/s of transfers of `bytes` that took `seconds` each: the median and every run. */
function throughput(bytes, seconds) {
  const MBps = (s) => round(bytes / 1e6 / s);
  return { MBps: MBps(median(seconds)), seconds: round(median(seconds), 2), all: seconds.map(MBps) };
}

/**
 * One load run against target `t`; cpuMs is the server's own process, cpuMsWithDb adds the
 * processes in t.extraPids (Agora's embedded database).
 */
async function runOn(t, spec, what) {
  const r = check(await load.run({ ...spec, pids: [t.pid, ...(t.extraPids ?? [])] }), `${t.name}: ${what}`);
  return { ...r, cpuMs: r.cpuMsByPid[0], ...(t.extraPids?.length ? { cpuMsWithDb: r.cpuMsPerRequest } : {}) };
}

/**
 * The servers in the order of run `i`: each run starts one further on, so no server always comes
 * right after the same other one (whose writeback, or page-cache memory, the next run meets).
 */
function inTurn(state, i) {
  return state.map((_, k) => state[(k + i) % state.length]);
}

/**
 * targets: [{ name, key, pid, extraPids?, upload(name) → url, uploadHeaders, download(name) → url,
 * uploadedName(body, name) }]
 */
async function benchTargets(targets, work, opts) {
  const state = targets.map((t) => ({ t, result: { name: t.name } }));
  // Every upload is stored under a name of its own on every server, as a file host stores distinct
  // files. The baselines keep a file under the name they are given: with the same 200 names in every
  // run they overwrote the same files, and truncating a file frees page-cache memory that the next
  // write reuses at once. Agora and linx-server store each upload anew, in memory the kernel must
  // take from its free pool; on a VM whose host backs that memory only when it is first touched, such
  // a write costs ~3 ms of CPU per MiB against ~0.7 (bench/README.md). So the baselines' CPU per
  // upload stayed level through a run while the file hosts' rose: Agora read 0.75× the fsync baseline.
  const upload = (s, bodies, tag) => (i) => ({
    url: s.t.upload(`${tag}-${i}.bin`),
    init: { method: 'PUT', headers: s.t.uploadHeaders, body: bodies[i] },
    keepBody: true,
  });

  // Warm-up: code paths loaded and compiled, connections and pools opened, so the memory baselines
  // below are the servers' steady state and not their first-use costs. Requests of each kind, as a
  // server that has been running has seen: a JIT-compiled server (Node) optimizes its hot functions
  // only after hundreds to thousands of calls (here Agora's CPU per distinct 1 MiB download fell from
  // ~0.85 to ~0.45 ms over its first 4,000 downloads, and per 1 MiB upload from ~8.8 to ~6.7 ms over
  // its first 600 uploads), which a compiled one (linx-server, Go) does not need. Optimizing goes on
  // well past that: V8's TurboFan compiles (on a thread of the server's own, so charged to its CPU)
  // took 1,154 ms during Agora's uploads 300–1,300, then 576, 253 and 185 ms per further 1,000
  // (--trace-opt, 2026-11-29): with 512 warm-up uploads, ~1 ms of each measured upload's CPU was the
  // JIT compiling, a cost a server pays once after it starts. Every server gets the same requests.
  const warmFiles = distinctBodies(WARM_FILES, 'warm');
  const warmBodies = Array.from({ length: WARM_UPLOADS }, (_, i) => warmFiles[i % WARM_FILES]);
  for (const s of state) {
    const what = `${s.t.name}: warm-up`;
    const up = check(
      await load.run({ request: upload(s, warmBodies, 'warm'), count: WARM_UPLOADS, connections: 8 }),
      what,
    );
    const names = up.bodies.map((b, i) => s.t.uploadedName(b, `warm-${i}.bin`));
    s.hotUrl = s.t.download(names[0]);
    // Each file once, then all of them over and over (the disk path: 1 MiB is above Agora's object
    // cache's largest file when downloads use sendfile), then the first 16 (a cache's path, if any).
    const once = (i) => ({ url: s.t.download(names[i % WARM_FILES]) });
    check(await load.run({ request: once, count: WARM_DOWNLOADS, connections: 8 }), what);
    const download = (i) => ({ url: s.t.download(names[i % 16]) });
    check(await load.run({ request: download, count: 4 * WARM_FILES, connections: 8 }), what);
  }

  // 1 GiB first, on the warmed servers: one upload and one download at a time; peak RSS growth over
  // them (kernel peak, bench/lib/memory.js). Before the 1 MiB phases, whose 8 concurrent requests
  // leave heap behind that would absorb (and hide) this phase's growth.
  const bigBytes = fs.statSync(work.big).size;
  for (const s of state) {
    s.bigUp = [];
    s.bigDown = [];
    s.rss = sampleRss(s.t.pid);
  }
  for (let i = 0; i < opts.runs; i++) {
    for (const s of inTurn(state, i)) {
      settleDisk();
      const body = await fs.openAsBlob(work.big);
      const init = { method: 'PUT', headers: s.t.uploadHeaders, body };
      const request = () => ({ url: s.t.upload(`big${i}.bin`), init, keepBody: true });
      const r = check(await load.run({ request, count: 1, connections: 1 }), `${s.t.name}: 1 GiB upload`);
      s.bigUp.push(r.seconds);
      s.bigName = s.t.uploadedName(r.bodies[0], `big${i}.bin`);
    }
  }
  for (const s of state) s.upRss = s.rss.lap();
  settleDisk();
  // Three downloads per upload run: one takes ~1 s and its speed is the client's (undici's receive
  // saturates a core), which moves ±5 % from one download to the next whatever the server. Alternated
  // 1 GiB downloads from Agora and linx-server, both with sendfile, paired 0.96–1.05× in five sets of
  // 8–10 (bench/README.md); the median of 3 fell either side of 1.0, of 9 it moves less.
  for (let i = 0; i < BIG_DOWNLOADS_PER_RUN * opts.runs; i++) {
    for (const s of inTurn(state, i)) {
      const request = () => ({ url: s.t.download(s.bigName) });
      const r = check(await load.run({ request, count: 1, connections: 1 }), `${s.t.name}: 1 GiB download`);
      if (r.bodyBytes !== bigBytes) throw new Error(`${s.t.name}: GET ${s.bigName} gave ${r.bodyBytes} bytes`);
      s.bigDown.push(r.seconds);
    }
  }
  for (const s of state) {
    const downRss = s.rss.lap();
    const rss = s.rss.stop();
    Object.assign(s.result, {
      upload1GiB: throughput(bigBytes, s.bigUp),
      download1GiB: throughput(bigBytes, s.bigDown),
      rssGrowth1GiBMiB: round(rss.growth / MiB),
      rss1GiB: {
        method: rss.method,
        baselineMiB: round(rss.baseline / MiB),
        peakMiB: round(rss.peak / MiB),
        // Each over the RSS its phase started with (memory kept after the uploads is not the downloads').
        uploadGrowthMiB: round(s.upRss.lapGrowth / MiB),
        downloadGrowthMiB: round(downRss.lapGrowth / MiB),
      },
    });
  }

  // Distinct 1 MiB files, in rounds: each round uploads a set of its own to every server in turn, then
  // downloads each of those files once from every server, so every file is downloaded within seconds
  // of its upload (page cache warm, as the row says). With all uploads first, the first round's files
  // waited minutes for their downloads, and a machine that pages out unused page cache (this VM's
  // DAMON scheme after ~60 s, bench/README.md) served some of them from the disk, more for the server
  // whose files happened to be older. Rounds are many and short because the machine drifts within a
  // run (a server's rate moved ±15 % between rounds of the same code): the ratio of two servers is
  // taken within each round and its median reported.
  //
  // Within a round the downloads take turns of DOWNLOAD_TURN per server, after ROUND_WARM_FILES
  // unmeasured downloads from every server (of files uploaded for them, unmeasured). Both because of
  // the client, the bottleneck of this row (Node's fetch spends 2–5 ms of CPU per 1 MiB download, the
  // server ~1): its cost per download depends on what it did just before. Right after the round's
  // uploads it ran up to 1.8× its later cost, so the server measured first lost its round (session 33's
  // last run: 0.77× linx-server in the round Agora downloaded first, 1.26× where linx-server did, 0.93–
  // 1.05× in the other three), and one phase of 500 per server let any drift land on one server only.
  const n = opts.distinctFiles;
  for (const s of state) {
    s.upRuns = [];
    s.downRuns = [];
  }
  for (let i = 0; i < opts.rounds; i++) {
    const bodies = distinctBodies(n + ROUND_WARM_FILES, `run${i}`);
    const names = new Map();
    const warmNames = new Map();
    const order = inTurn(state, i);
    for (const s of order) {
      settleDisk();
      const up = upload(s, bodies, `run${i}`);
      const r = await runOn(s.t, { request: up, count: n, connections: 8 }, '1 MiB uploads');
      s.upRuns.push(r);
      names.set(
        s,
        r.bodies.map((b, k) => s.t.uploadedName(b, `run${i}-${k}.bin`)),
      );
      const w = check(await load.run({ request: (k) => up(n + k), count: ROUND_WARM_FILES, connections: 8 }), s.t.name);
      warmNames.set(
        s,
        w.bodies.map((b, k) => s.t.uploadedName(b, `run${i}-${n + k}.bin`)),
      );
    }
    settleDisk();
    for (const s of order) {
      const request = (k) => ({ url: s.t.download(warmNames.get(s)[k]) });
      check(await load.run({ request, count: ROUND_WARM_FILES, connections: 8 }), `${s.t.name}: round warm-up`);
    }
    const turns = new Map(order.map((s) => [s, []]));
    for (let from = 0; from < n; from += DOWNLOAD_TURN) {
      for (const s of order) {
        const mine = names.get(s);
        const request = (k) => ({ url: s.t.download(mine[from + k]) });
        const count = Math.min(DOWNLOAD_TURN, n - from);
        turns.get(s).push(await runOn(s.t, { request, count, connections: 8 }, '1 MiB distinct downloads'));
      }
    }
    for (const s of order) {
      const r = mergeRuns(turns.get(s));
      if (r.bodyBytes !== n * MiB) throw new Error(`${s.t.name}: distinct downloads gave ${r.bodyBytes} bytes`);
      s.downRuns.push(r);
    }
  }
  for (const s of state) {
    s.result.upload1MiB = summarize(s.upRuns);
    s.result.download1MiBDistinct = summarize(s.downRuns);
  }

  // The hot file: one stored 1 MiB file downloaded over and over.
  for (const s of state) s.hotRuns = [];
  for (let i = 0; i < opts.runs; i++) {
    for (const s of inTurn(state, i)) {
      const spec = { request: () => ({ url: s.hotUrl }), count: Infinity, duration: opts.seconds, connections: 8 };
      s.hotRuns.push(await runOn(s.t, spec, '1 MiB hot downloads'));
    }
  }
  for (const s of state) s.result.download1MiBHot = summarize(s.hotRuns);
  return state.map((s) => s.result);
}

/**
 * external: { url, pid, name } of a server with the linx-server API (Linx-* headers), measured as
 * a fourth target, or null.
 */
/**
 * Disk space of `dir` against what the files group writes (every server keeps its files until the
 * end). A file system near full allocates blocks slowly (ext4 searches harder for free extents):
 * with ~1 GiB left at the peak of a run, uploads cost every server twice the system time, so the
 * figures would measure the disk's fullness, not the servers. Warns, and says so in the report.
 */
function diskSpace(dir, opts, servers) {
  const st = fs.statfsSync(dir);
  const GiB = 1024 ** 3;
  const perServer =
    opts.runs * opts.bigBytes + (opts.rounds * (opts.distinctFiles + ROUND_WARM_FILES) + WARM_UPLOADS) * MiB;
  const need = opts.bigBytes + servers * perServer;
  const free = st.bavail * st.bsize;
  const total = st.blocks * st.bsize;
  const low = free - need < Math.max(0.1 * total, 5 * GiB);
  const r = (x) => round(x / GiB, 1);
  if (low) {
    process.stderr.write(
      `[bench] warning: ${r(free)} GiB free, the files group writes ~${r(need)} GiB: ` +
        'a nearly full file system slows every upload; free space first\n',
    );
  }
  return { freeGiB: r(free), totalGiB: r(total), needGiB: r(need), low };
}

async function runFilesBench({ agora, db, workDir, opts, external = null }) {
  const disk = diskSpace(workDir, opts, external ? 4 : 3);
  const work = { big: path.join(workDir, 'big.bin') };
  makeFile(work.big, opts.bigBytes);

  const baseline = await startBaseline(path.join(workDir, 'baseline-store'));
  // The same baseline, flushing each upload to disk before answering: Agora must (docs/files-api.md §13,
  // bytes durable before the metadata), the plain baseline does not.
  const durableBaseline = await startBaseline(path.join(workDir, 'baseline-durable-store'), ['--fsync']);
  const plain = (name, server) => ({
    name,
    pid: server.pid,
    upload: (n) => `${server.url}/${n}`,
    uploadHeaders: {},
    download: (n) => `${server.url}/${n}`,
    uploadedName: (_body, n) => n,
  });
  const targets = [
    { key: 'baseline', ...plain('baseline (plain Node stream + SHA-256)', baseline) },
    {
      key: 'agora',
      name: 'agora',
      pid: agora.pid,
      extraPids: db?.pid && db.pid !== process.pid ? [db.pid] : [],
      upload: (n) => `${agora.url}/upload/${n}`,
      uploadHeaders: { accept: 'application/json', 'files-randomize': 'yes' },
      download: (n) => `${agora.url}/selif/${n}`,
      uploadedName: (body) => JSON.parse(body).filename,
    },
    { key: 'durableBaseline', ...plain('baseline + fsync before answering', durableBaseline) },
  ];
  if (external) {
    targets.push({
      key: 'external',
      name: external.name,
      pid: external.pid,
      upload: (n) => `${external.url}/upload/${n}`,
      uploadHeaders: { accept: 'application/json', 'linx-randomize': 'yes' },
      download: (n) => `${external.url}/selif/${n}`,
      uploadedName: (body) => JSON.parse(body).filename,
    });
  }
  let measured;
  try {
    measured = await benchTargets(targets, work, opts);
  } finally {
    await baseline.stop();
    await durableBaseline.stop();
    fs.rmSync(path.join(workDir, 'baseline-store'), { recursive: true, force: true });
    fs.rmSync(path.join(workDir, 'baseline-durable-store'), { recursive: true, force: true });
  }
  const byKey = Object.fromEntries(targets.map((t, i) => [t.key, measured[i]]));
  const ours = byKey.agora;
  const ratio = (a, b) => (b ? round(a / b, 2) : null);
  // The 1 MiB rows: the median of the ratios within each round (runs seconds apart, see benchTargets).
  const perRound = (a, b) => a.map((x, i) => x / b[i]);
  const paired = (a, b) => round(median(perRound(a, b)), 2);
  const rps = (other, key) => paired(ours[key].all, other[key].all);
  const cpu = (other, key) => paired(ours[key].cpuAll, other[key].cpuAll);
  const eachRound = (other, key) => perRound(ours[key].all, other[key].all).map((r) => round(r, 2));
  const ratiosTo = (other) => ({
    upload1MiB: rps(other, 'upload1MiB'),
    download1MiBDistinct: rps(other, 'download1MiBDistinct'),
    download1MiBHot: rps(other, 'download1MiBHot'),
    upload1GiB: ratio(ours.upload1GiB.MBps, other.upload1GiB.MBps),
    download1GiB: ratio(ours.download1GiB.MBps, other.download1GiB.MBps),
    cpuPerDownloadDistinct: cpu(other, 'download1MiBDistinct'),
    cpuPerUpload: cpu(other, 'upload1MiB'),
    // Each round's ratio, in round order, for the rows above that take their median.
    rounds: {
      upload1MiB: eachRound(other, 'upload1MiB'),
      download1MiBDistinct: eachRound(other, 'download1MiBDistinct'),
    },
  });
  const uploadsToExternal = (m) => ratio(m.upload1MiB.requestsPerSecond, byKey.external.upload1MiB.requestsPerSecond);
  const bigMiB = fs.statSync(work.big).size / MiB;
  return {
    client:
      `Node ${process.version} fetch (undici), keep-alive, 8 concurrent requests (1 for the big file); ` +
      'servers alternate run by run',
    disk,
    bigLabel: bigMiB >= 1024 ? `${Math.round(bigMiB / 1024)} GiB` : `${Math.round(bigMiB)} MiB`,
    distinctFiles: opts.distinctFiles,
    rounds: opts.rounds,
    downloadTurn: DOWNLOAD_TURN,
    roundWarmFiles: ROUND_WARM_FILES,
    bigDownloads: BIG_DOWNLOADS_PER_RUN * opts.runs,
    ...byKey,
    ratios: ratiosTo(byKey.baseline),
    durableRatios: ratiosTo(byKey.durableBaseline),
    ...(external ? { externalRatios: ratiosTo(byKey.external) } : {}),
    // What a plain Node server makes of the same uploads beside the external one: the baselines hash
    // and write like it (the second also fsyncs) and do nothing else.
    ...(external
      ? {
          baselineUploadsToExternal: {
            baseline: uploadsToExternal(byKey.baseline),
            durableBaseline: uploadsToExternal(byKey.durableBaseline),
          },
        }
      : {}),
  };
}

module.exports = { runFilesBench, makeFile };
