/**
 * Files benchmark: upload and download throughput for 1 MiB and 1 GiB files and the server's peak
 * resident memory growth, for Agora and, in the same run, for a baseline Node server doing the same
 * work as plainly as possible (bench/baseline-server.js). Ratios are computed within the run.
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

function startBaseline(dir) {
  const child = spawn(process.execPath, [path.join(__dirname, 'baseline-server.js'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
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

/**
 * target: { name, pid, upload(i) → url, uploadHeaders, download(name) → url, uploadedName(body, i) }
 */
async function benchTarget(target, work, opts) {
  const small = fs.readFileSync(work.small);
  const result = { name: target.name };

  // Warm-up: code paths loaded and compiled, database connections and file pools opened, so the
  // memory baseline below is the server's steady state and not its first-use costs.
  const { body } = await putFile(target.upload('dl-small.bin'), work.small, target.uploadHeaders);
  const smallUrl = target.download(target.uploadedName(body, 'dl-small.bin'));
  await lean.run({ url: target.upload('warm.bin'), method: 'PUT', body: small, headers: target.uploadHeaders, connections: 2, amount: 8 });
  await lean.run({ url: smallUrl, connections: 2, amount: 50 });

  // 1 GiB first, on the warmed server: one streamed upload and one download at a time; peak RSS
  // growth over all of them (kernel peak, bench/lib/memory.js). Measured before the 1 MiB phases,
  // whose 8 concurrent requests leave heap behind that would absorb (and hide) this phase's growth.
  const bigUp = [];
  const bigDown = [];
  let bigName;
  settleDisk();
  const bigRss = sampleRss(target.pid);
  for (let i = 0; i < opts.runs; i++) {
    const r = await putFile(target.upload(`big${i}.bin`), work.big, target.uploadHeaders);
    bigUp.push(r.seconds);
    bigName = target.uploadedName(r.body, `big${i}.bin`);
  }
  const upRss = bigRss.lap();
  settleDisk();
  for (let i = 0; i < opts.runs; i++) {
    // The lean client (one connection, one request): Node's http client parsing a 1 GiB body is slower than the servers.
    const r = await lean.run({ url: target.download(bigName), connections: 1, amount: 1, timeout: 600 });
    if (r.non2xx + r.errors > 0 || r.bodyBytes !== fs.statSync(work.big).size) throw new Error(`GET ${bigName}: status/errors ${r.non2xx}/${r.errors}, ${r.bodyBytes} bytes`);
    bigDown.push(r.seconds);
  }
  const downRss = bigRss.lap();
  const rss = bigRss.stop();
  const bigBytes = fs.statSync(work.big).size;
  result.upload1GiB = { MBps: round(bigBytes / 1e6 / median(bigUp)), seconds: round(median(bigUp), 2), runs: opts.runs };
  result.download1GiB = { MBps: round(bigBytes / 1e6 / median(bigDown)), seconds: round(median(bigDown), 2), runs: opts.runs };
  result.rssGrowth1GiBMiB = round(rss.growth / MiB);
  result.rss1GiB = {
    method: rss.method,
    baselineMiB: round(rss.baseline / MiB),
    peakMiB: round(rss.peak / MiB),
    sampledPeakMiB: round(rss.sampledPeak / MiB),
    uploadGrowthMiB: round(upRss.growth / MiB),
    downloadGrowthMiB: round(downRss.growth / MiB),
  };

  // 1 MiB uploads: a fixed number of requests so both servers write the same bytes.
  settleDisk();
  const up = sampleRss(target.pid);
  result.upload1MiB = await lean.measure({ url: target.upload('small.bin'), method: 'PUT', body: small, headers: target.uploadHeaders, connections: 8, amount: opts.smallUploads }, opts.runs);
  result.upload1MiB.rssGrowthMiB = round(up.stop().growth / MiB);

  // 1 MiB downloads of one stored file.
  const down = sampleRss(target.pid);
  result.download1MiB = await lean.measure({ url: smallUrl, connections: 8, duration: opts.seconds }, opts.runs);
  result.download1MiB.rssGrowthMiB = round(down.stop().growth / MiB);
  return result;
}

async function runFilesBench({ agora, workDir, opts }) {
  const work = { small: path.join(workDir, 'small.bin'), big: path.join(workDir, 'big.bin') };
  makeFile(work.small, MiB);
  makeFile(work.big, opts.bigBytes);

  const baseline = await startBaseline(path.join(workDir, 'baseline-store'));
  let base;
  try {
    base = await benchTarget(
      {
        name: 'baseline (plain Node stream + SHA-256)',
        pid: baseline.pid,
        upload: (name) => `${baseline.url}/${name}`,
        uploadHeaders: {},
        download: (name) => `${baseline.url}/${name}`,
        uploadedName: (_body, name) => name,
      },
      work,
      opts,
    );
  } finally {
    await baseline.stop();
    // Its files are not needed any more: deleting them also drops their unwritten pages.
    fs.rmSync(path.join(workDir, 'baseline-store'), { recursive: true, force: true });
  }

  const ours = await benchTarget(
    {
      name: 'agora',
      pid: agora.pid,
      upload: (name) => `${agora.url}/upload/${name}`,
      uploadHeaders: { accept: 'application/json', 'files-randomize': 'yes' },
      download: (name) => `${agora.url}/selif/${name}`,
      uploadedName: (body) => JSON.parse(body).filename,
    },
    work,
    opts,
  );

  const ratio = (a, b) => round(a / b, 2);
  const bad = [base, ours].flatMap((r) => [r.upload1MiB, r.download1MiB]).reduce((n, m) => n + m.non2xx + m.errors, 0);
  if (bad > 0) throw new Error(`files: ${bad} failed requests (non-2xx or errors)`);
  const bigMiB = fs.statSync(work.big).size / MiB;
  return {
    client: 'bench/lib/lean-load.js (raw sockets, keep-alive, bodies counted and dropped), 8 connections',
    bigLabel: bigMiB >= 1024 ? `${Math.round(bigMiB / 1024)} GiB` : `${Math.round(bigMiB)} MiB`,
    baseline: base,
    agora: ours,
    ratios: {
      upload1MiB: ratio(ours.upload1MiB.requestsPerSecond, base.upload1MiB.requestsPerSecond),
      download1MiB: ratio(ours.download1MiB.requestsPerSecond, base.download1MiB.requestsPerSecond),
      upload1GiB: ratio(ours.upload1GiB.MBps, base.upload1GiB.MBps),
      download1GiB: ratio(ours.download1GiB.MBps, base.download1GiB.MBps),
    },
  };
}

module.exports = { runFilesBench, putFile, getFile, makeFile };
