/**
 * Files benchmark: upload and download throughput for 1 MiB and 1 GiB files and the server's peak
 * resident memory growth, for Agora and, in the same run, for a baseline Node server doing the same
 * work as plainly as possible (bench/baseline-server.js). Ratios are computed within the run, whose
 * runs alternate between the two servers.
 */
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const lean = require('./lib/lean-load');
const { sampleRss } = require('./lib/memory');
const { median, round } = require('./lib/stats');

const MiB = 1024 * 1024;

function startBaseline(dir, extraArgs = []) {
  const child = spawn(process.execPath, [path.join(__dirname, 'baseline-server.js'), dir, ...extraArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => {
      const m = /listening on (\S+)/.exec(d.toString());
      if (!m) return reject(new Error(`baseline: ${d}`));
      resolve({ url: m[1], pid: child.pid, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) });
    });
  });
}

/** One streamed PUT of `file`; resolves with seconds taken. */
function putFile(url, file, headers = {}) {
  const size = fs.statSync(file).size;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(url, { method: 'PUT', headers: { 'content-length': size, ...headers } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`PUT ${url} → ${res.statusCode} ${body}`));
        resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, body });
      });
    });
    req.on('error', reject);
    fs.createReadStream(file, { highWaterMark: MiB }).pipe(req);
  });
}

/** One GET whose body is counted and dropped; resolves with seconds taken. */
function getFile(url) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    http
      .get(url, (res) => {
        let bytes = 0;
        res.on('data', (d) => (bytes += d.length));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`GET ${url} → ${res.statusCode}`));
          resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes });
        });
      })
      .on('error', reject);
  });
}

function makeFile(file, bytes) {
  if (fs.existsSync(file) && fs.statSync(file).size === bytes) return;
  const fd = fs.openSync(file, 'w');
  const block = crypto.randomBytes(MiB);
  for (let written = 0; written < bytes; written += MiB) fs.writeSync(fd, block, 0, Math.min(MiB, bytes - written));
  fs.closeSync(fd);
}

/**
 * Writes back what earlier phases left dirty in the page cache (`sync`), so each phase starts on an
 * idle disk: the baseline does not fsync, and gigabytes of its writes would otherwise be flushed
 * while the next target's uploads wait for their own fsync.
 */
function settleDisk() {
  try {
    execFileSync('sync', { stdio: 'ignore', timeout: 120_000 });
  } catch {
    /* no `sync` here: measure anyway */
  }
}

/** One lean.measure-style summary of single runs (medians; failures summed). */
function summarize(runs) {
  return {
    requestsPerSecond: round(median(runs.map((r) => r.requestsPerSecond))),
    p50Ms: round(median(runs.map((r) => r.p50Ms)), 2),
    p99Ms: round(median(runs.map((r) => r.p99Ms)), 2),
    bytesPerSecond: Math.round(median(runs.map((r) => r.bodyBytes / r.seconds))),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    runs: runs.length,
  };
}

/**
 * targets: [{ name, pid, upload(i) → url, uploadHeaders, download(name) → url, uploadedName(body, i) }]
 *
 * Every measurement alternates between the targets run by run (A, B, A, B …), so a change in the
 * machine's load during the benchmark (other processes on a shared machine) reaches both servers
 * alike instead of whichever happened to run at the time. Only one target is loaded at a time.
 */
async function benchTargets(targets, work, opts) {
  const small = fs.readFileSync(work.small);
  const bigBytes = fs.statSync(work.big).size;
  const state = targets.map((t) => ({ t, result: { name: t.name } }));

  // Warm-up: code paths loaded and compiled, database connections and file pools opened, so the
  // memory baselines below are the servers' steady state and not their first-use costs.
  for (const s of state) {
    const { body } = await putFile(s.t.upload('dl-small.bin'), work.small, s.t.uploadHeaders);
    s.smallUrl = s.t.download(s.t.uploadedName(body, 'dl-small.bin'));
    await lean.run({ url: s.t.upload('warm.bin'), method: 'PUT', body: small, headers: s.t.uploadHeaders, connections: 2, amount: 8 });
    await lean.run({ url: s.smallUrl, connections: 2, amount: 50 });
  }

  // 1 GiB first, on the warmed servers: one streamed upload and one download at a time; peak RSS
  // growth over all of them (kernel peak, bench/lib/memory.js). Measured before the 1 MiB phases,
  // whose 8 concurrent requests leave heap behind that would absorb (and hide) this phase's growth.
  for (const s of state) {
    s.bigUp = [];
    s.bigDown = [];
    s.rss = sampleRss(s.t.pid);
  }
  for (let i = 0; i < opts.runs; i++) {
    for (const s of state) {
      settleDisk();
      const r = await putFile(s.t.upload(`big${i}.bin`), work.big, s.t.uploadHeaders);
      s.bigUp.push(r.seconds);
      s.bigName = s.t.uploadedName(r.body, `big${i}.bin`);
    }
  }
  for (const s of state) s.upRss = s.rss.lap();
  settleDisk();
  for (let i = 0; i < opts.runs; i++) {
    for (const s of state) {
      // The lean client (one connection, one request): Node's http client parsing a 1 GiB body is slower than the servers.
      const r = await lean.run({ url: s.t.download(s.bigName), connections: 1, amount: 1, timeout: 600 });
      if (r.non2xx + r.errors > 0 || r.bodyBytes !== bigBytes) throw new Error(`GET ${s.bigName}: status/errors ${r.non2xx}/${r.errors}, ${r.bodyBytes} bytes`);
      s.bigDown.push(r.seconds);
    }
  }
  for (const s of state) {
    const downRss = s.rss.lap();
    const rss = s.rss.stop();
    Object.assign(s.result, {
      upload1GiB: { MBps: round(bigBytes / 1e6 / median(s.bigUp)), seconds: round(median(s.bigUp), 2), runs: opts.runs },
      download1GiB: { MBps: round(bigBytes / 1e6 / median(s.bigDown)), seconds: round(median(s.bigDown), 2), runs: opts.runs },
      rssGrowth1GiBMiB: round(rss.growth / MiB),
      rss1GiB: {
        method: rss.method,
        baselineMiB: round(rss.baseline / MiB),
        peakMiB: round(rss.peak / MiB),
        sampledPeakMiB: round(rss.sampledPeak / MiB),
        // Each over the RSS its phase started with (memory kept after the uploads is not the downloads').
        uploadGrowthMiB: round(s.upRss.lapGrowth / MiB),
        downloadGrowthMiB: round(downRss.lapGrowth / MiB),
      },
    });
  }

  // 1 MiB uploads: a fixed number of requests so both servers write the same bytes.
  for (const s of state) {
    s.runs = [];
    s.rss = sampleRss(s.t.pid);
  }
  for (let i = 0; i < opts.runs; i++) {
    for (const s of state) {
      settleDisk();
      s.runs.push(await lean.run({ url: s.t.upload('small.bin'), method: 'PUT', body: small, headers: s.t.uploadHeaders, connections: 8, amount: opts.smallUploads }));
    }
  }
  for (const s of state) s.result.upload1MiB = { ...summarize(s.runs), rssGrowthMiB: round(s.rss.stop().growth / MiB) };

  // 1 MiB downloads of one stored file.
  for (const s of state) {
    s.runs = [];
    s.rss = sampleRss(s.t.pid);
  }
  for (let i = 0; i < opts.runs; i++) {
    for (const s of state) s.runs.push(await lean.run({ url: s.smallUrl, connections: 8, duration: opts.seconds }));
  }
  for (const s of state) s.result.download1MiB = { ...summarize(s.runs), rssGrowthMiB: round(s.rss.stop().growth / MiB) };
  return state.map((s) => s.result);
}

async function runFilesBench({ agora, workDir, opts }) {
  const work = { small: path.join(workDir, 'small.bin'), big: path.join(workDir, 'big.bin') };
  makeFile(work.small, MiB);
  makeFile(work.big, opts.bigBytes);

  const baseline = await startBaseline(path.join(workDir, 'baseline-store'));
  // The same baseline, flushing each upload to disk before answering: Agora must (files spec 11,
  // bytes durable before the metadata), the baseline of the issue does not. Shown for comparison.
  const durableBaseline = await startBaseline(path.join(workDir, 'baseline-durable-store'), ['--fsync']);
  let base;
  let ours;
  let durable;
  try {
    [base, ours, durable] = await benchTargets(
      [
        {
          name: 'baseline (plain Node stream + SHA-256)',
          pid: baseline.pid,
          upload: (name) => `${baseline.url}/${name}`,
          uploadHeaders: {},
          download: (name) => `${baseline.url}/${name}`,
          uploadedName: (_body, name) => name,
        },
        {
          name: 'agora',
          pid: agora.pid,
          upload: (name) => `${agora.url}/upload/${name}`,
          uploadHeaders: { accept: 'application/json', 'files-randomize': 'yes' },
          download: (name) => `${agora.url}/selif/${name}`,
          uploadedName: (body) => JSON.parse(body).filename,
        },
        {
          name: 'baseline + fsync before answering',
          pid: durableBaseline.pid,
          upload: (name) => `${durableBaseline.url}/${name}`,
          uploadHeaders: {},
          download: (name) => `${durableBaseline.url}/${name}`,
          uploadedName: (_body, name) => name,
        },
      ],
      work,
      opts,
    );
  } finally {
    await baseline.stop();
    await durableBaseline.stop();
    fs.rmSync(path.join(workDir, 'baseline-store'), { recursive: true, force: true });
    fs.rmSync(path.join(workDir, 'baseline-durable-store'), { recursive: true, force: true });
  }

  const ratio = (a, b) => round(a / b, 2);
  const bad = [base, ours].flatMap((r) => [r.upload1MiB, r.download1MiB]).reduce((n, m) => n + m.non2xx + m.errors, 0);
  if (bad > 0) throw new Error(`files: ${bad} failed requests (non-2xx or errors)`);
  const bigMiB = fs.statSync(work.big).size / MiB;
  return {
    client: 'bench/lib/lean-load.js (raw sockets, keep-alive, bodies counted and dropped), 8 connections; baseline and Agora runs alternate',
    bigLabel: bigMiB >= 1024 ? `${Math.round(bigMiB / 1024)} GiB` : `${Math.round(bigMiB)} MiB`,
    baseline: base,
    agora: ours,
    durableBaseline: durable,
    durableRatios: {
      upload1MiB: ratio(ours.upload1MiB.requestsPerSecond, durable.upload1MiB.requestsPerSecond),
      upload1GiB: ratio(ours.upload1GiB.MBps, durable.upload1GiB.MBps),
    },
    ratios: {
      upload1MiB: ratio(ours.upload1MiB.requestsPerSecond, base.upload1MiB.requestsPerSecond),
      download1MiB: ratio(ours.download1MiB.requestsPerSecond, base.download1MiB.requestsPerSecond),
      upload1GiB: ratio(ours.upload1GiB.MBps, base.upload1GiB.MBps),
      download1GiB: ratio(ours.download1GiB.MBps, base.download1GiB.MBps),
    },
  };
}

module.exports = { runFilesBench, putFile, getFile, makeFile };
