/**
 * Agora's resumable uploads beside other tus servers (issue 42: a well-kept tus implementation where it
 * fits, unless measurement shows it cannot meet the targets). One client, the same for every server:
 * an uninterrupted tus upload of the big file (BENCH_BIG_MB, 1 GiB) in PATCHes of TUS_CHUNK_MB (50 MiB),
 * each waiting for the previous answer as tus-js-client does, against:
 *
 *   - Agora's `PUT /upload` of the same file (the target's baseline) and Agora's tus endpoint, on a
 *     server started from this worktree's build (disk store; also GridFS with BENCH_TUS_GRIDFS=1);
 *   - each external tus server given by BENCH_TUS_EXTERNAL_URL (its creation endpoint, e.g.
 *     http://127.0.0.1:1080/files) and BENCH_TUS_EXTERNAL_PID, started by hand (for instance @tus/server
 *     with @tus/file-store, which Agora does not depend on); comma-separated lists measure several, named
 *     by BENCH_TUS_EXTERNAL_NAME (comma-separated too).
 *
 * Each run uploads once to every row, the rows taking turns (run i starts one row further), with a
 * `sync` before each upload so no row pays for another's dirty pages. Reported per row: MB/s (median of
 * BENCH_RUNS, 3), server CPU seconds per upload (its threads' schedstat, /proc; Agora's database process
 * beside it), the peak RSS growth over its uploads (after one warm-up upload of WARM_MB), and each row ÷
 * Agora's PUT. The load average at start and end is printed: on a shared machine, compare rows of one run.
 *
 *   npm run build && BENCH_TUS_EXTERNAL_URL=… BENCH_TUS_EXTERNAL_PID=… node bench/tus-server-compare.js
 *
 * Writes bench/results/tus-compare.json and tus-compare.md.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startDatabase, startAgora, tempDir } = require('./lib/agora');
const { cpuProbeMs } = require('./lib/cpu-probe');
const { rssBytes, sampleRss, cpuSeconds } = require('./lib/memory');
const { median, round } = require('./lib/stats');
const { makeFile } = require('./files');

const MiB = 1024 * 1024;
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const RUNS = env('BENCH_RUNS', 3);
const BIG_BYTES = env('BENCH_BIG_MB', 1024) * MiB;
const WARM_BYTES = env('WARM_MB', 100) * MiB;
const CHUNK = env('TUS_CHUNK_MB', 50) * MiB;
const TUS = { 'tus-resumable': '1.0.0' };
const log = (m) => process.stderr.write(`[tus-compare] ${m}\n`);
const list = (v) => (v ?? '').split(',').map((s) => s.trim());

async function ok(res, what) {
  const body = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${body}`);
  return { res, body };
}

/** A tus upload of `blob` through `endpoint` (the creation URL); resolves the upload URL. */
async function tusUpload(endpoint, blob, headers = {}) {
  const { res } = await ok(
    await fetch(endpoint, {
      method: 'POST',
      headers: {
        ...TUS,
        ...headers,
        'upload-length': String(blob.size),
        'upload-metadata': `filename ${Buffer.from('big.bin').toString('base64')}`,
      },
    }),
    'tus creation',
  );
  const uploadUrl = new URL(res.headers.get('location'), endpoint).href;
  for (let offset = 0; offset < blob.size; offset += CHUNK) {
    const part = blob.slice(offset, Math.min(blob.size, offset + CHUNK));
    const { res: answer } = await ok(
      await fetch(uploadUrl, {
        method: 'PATCH',
        headers: { ...TUS, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
        body: part,
        duplex: 'half',
      }),
      `PATCH at ${offset}`,
    );
    const stored = Number(answer.headers.get('upload-offset'));
    if (stored !== offset + part.size) throw new Error(`PATCH at ${offset}: Upload-Offset ${stored}`);
  }
  return uploadUrl;
}

/** The rows an Agora instance gives: its PUT /upload and its tus endpoint, both checked by their JSON. */
function agoraRows(agora, dbPid, label) {
  const extraPids = dbPid ? [dbPid] : [];
  const checkSize = (json, bytes) => {
    if (json.size !== String(bytes)) throw new Error(`${label}: stored ${json.size} bytes of ${bytes}`);
  };
  return [
    {
      name: `Agora ${label} PUT /upload`,
      pid: agora.pid,
      extraPids,
      async upload(blob) {
        const { body } = await ok(
          await fetch(`${agora.url}/upload/big.bin`, {
            method: 'PUT',
            headers: { accept: 'application/json', 'files-randomize': 'yes' },
            body: blob,
            duplex: 'half',
          }),
          'PUT',
        );
        checkSize(JSON.parse(body), blob.size);
      },
    },
    {
      name: `Agora ${label} tus`,
      pid: agora.pid,
      extraPids,
      async upload(blob) {
        const url = await tusUpload(`${agora.url}/upload/resumable`, blob, { 'files-randomize': 'yes' });
        const { body } = await ok(await fetch(url, { headers: { accept: 'application/json' } }), 'GET');
        checkSize(JSON.parse(body), blob.size);
      },
    },
  ];
}

function externalRows() {
  const urls = list(process.env.BENCH_TUS_EXTERNAL_URL).filter(Boolean);
  const pids = list(process.env.BENCH_TUS_EXTERNAL_PID);
  const names = list(process.env.BENCH_TUS_EXTERNAL_NAME);
  return urls.map((endpoint, i) => ({
    name: names[i] || `external tus server ${i + 1}`,
    pid: Number(pids[i]),
    extraPids: [],
    async upload(blob) {
      const url = await tusUpload(endpoint, blob);
      const head = await fetch(url, { method: 'HEAD', headers: TUS });
      const stored = Number(head.headers.get('upload-offset'));
      if (!head.ok || stored !== blob.size) throw new Error(`HEAD ${url}: ${head.status}, offset ${stored}`);
    },
  }));
}

/** Writes back the page cache's dirty pages, so each upload starts on an idle disk. */
function settleDisk() {
  try {
    execFileSync('sync', { stdio: 'ignore', timeout: 120_000 });
  } catch {
    /* no sync(1): the figures carry the other rows' write-back */
  }
}

const cpuOf = (pids) => pids.map((p) => cpuSeconds(p));

async function measure(rows, bigFile) {
  const loadAverageAtStart = os.loadavg().map((x) => round(x, 2));
  for (const row of rows) {
    // A warm-up upload: code loaded and pools opened on first use are not the upload's growth.
    settleDisk();
    await row.upload(await fs.openAsBlob(bigFile + '.warm'));
    row.runs = [];
  }
  const rssAfterWarmUp = new Map(rows.map((r) => [r.pid, rssBytes(r.pid)]));
  for (let run = 0; run < RUNS; run++) {
    for (let k = 0; k < rows.length; k++) {
      const row = rows[(run + k) % rows.length];
      settleDisk();
      const blob = await fs.openAsBlob(bigFile);
      const rss = sampleRss(row.pid);
      const cpu0 = cpuOf([row.pid, ...row.extraPids]);
      const t0 = performance.now();
      await row.upload(blob);
      const seconds = (performance.now() - t0) / 1000;
      const cpu1 = cpuOf([row.pid, ...row.extraPids]);
      const { growth, method } = rss.stop();
      row.rssMethod = method;
      row.runs.push({ seconds, cpu: cpu1[0] - cpu0[0], dbCpu: (cpu1[1] ?? 0) - (cpu0[1] ?? 0), growth });
      log(`run ${run + 1}: ${row.name} ${round(BIG_BYTES / 1e6 / seconds)} MB/s`);
    }
  }
  for (const row of rows) {
    row.rssHeldMiB = round((rssBytes(row.pid) - rssAfterWarmUp.get(row.pid)) / MiB);
  }
  return { loadAverageAtStart, loadAverageAtEnd: os.loadavg().map((x) => round(x, 2)) };
}

function summarize(rows) {
  const out = rows.map((row) => {
    return {
      name: row.name,
      MBps: round(BIG_BYTES / 1e6 / median(row.runs.map((r) => r.seconds))),
      allMBps: row.runs.map((r) => round(BIG_BYTES / 1e6 / r.seconds)),
      cpuSeconds: round(median(row.runs.map((r) => r.cpu)), 2),
      dbCpuSeconds: row.extraPids.length ? round(median(row.runs.map((r) => r.dbCpu)), 2) : null,
      rssGrowthMiB: round(Math.max(...row.runs.map((r) => r.growth)) / MiB),
      rssMethod: row.rssMethod,
      rssHeldMiB: row.rssHeldMiB,
    };
  });
  // Each row ÷ Agora's PUT of the same run (the rows of one run met the most similar load), then the median.
  const put = rows.find((r) => r.name.endsWith('disk PUT /upload'));
  out.forEach((r, i) => {
    r.ofPut = put ? round(median(rows[i].runs.map((run, k) => put.runs[k].seconds / run.seconds)), 2) : null;
    r.cpuOfPut = put ? round(median(rows[i].runs.map((run, k) => run.cpu / put.runs[k].cpu)), 2) : null;
  });
  return out;
}

function table(results) {
  const m = results.machine;
  return [
    `# tus servers beside Agora (${results.date})`,
    '',
    `${m.cores} cores (${m.cpu}), Node ${m.node}, CPU probe ${m.cpuProbeMs} → ${m.cpuProbeMsAtEnd} ms, load average ` +
      `${results.loadAverageAtStart.join(' ')} → ${results.loadAverageAtEnd.join(' ')}; ` +
      `${round(BIG_BYTES / MiB)} MiB, ${CHUNK / MiB} MiB PATCHes, medians of ${RUNS} runs.`,
    '',
    '| Server | MB/s (median) | ÷ Agora PUT | server CPU s / upload | ÷ Agora PUT | database CPU s | ' +
      'peak RSS growth MiB | RSS held MiB | runs (MB/s) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.rows.map(
      (r) =>
        `| ${r.name} | ${r.MBps} | ${r.ofPut ?? 'n/a'} | ${r.cpuSeconds} | ${r.cpuOfPut ?? 'n/a'} | ` +
        `${r.dbCpuSeconds ?? 'n/a'} | ` +
        `${r.rssGrowthMiB} | ${r.rssHeldMiB} | ${r.allMBps.join(', ')} |`,
    ),
    '',
    "Peak RSS growth: the largest rise of the server's resident set during one upload over what it held when",
    'that upload began (kernel VmHWM). RSS held: its resident set after the runs less after the warm-up (one process',
    "serves both of an Agora's rows). Server CPU: user + system of the server's threads per upload (/proc).",
    "The ÷ columns are medians of each run's ratio to the Agora PUT of the same run (MB/s, and CPU per upload).",
    '',
  ].join('\n');
}

async function main() {
  const workDir = tempDir('agora-tus-compare-');
  const bigFile = path.join(workDir, 'big.bin');
  makeFile(bigFile, BIG_BYTES);
  makeFile(bigFile + '.warm', WARM_BYTES);
  const db = await startDatabase(path.join(workDir, 'data'));
  const dbPid = db.pid && db.pid !== process.pid ? db.pid : null;
  const agoras = [];
  try {
    const start = async (label, storage) => {
      const agora = await startAgora({
        mongoUri: `${db.uri}/agora_bench_tus_${label}`,
        dataDir: path.join(workDir, `agora-${label}`),
        env: { DEMO_SEED: 'false', FILES_STORAGE: storage },
      });
      agoras.push(agora);
      return agora;
    };
    const rows = [...agoraRows(await start('disk', 'disk'), dbPid, 'disk')];
    if (process.env.BENCH_TUS_GRIDFS === '1') rows.push(...agoraRows(await start('gridfs', 'gridfs'), dbPid, 'GridFS'));
    rows.push(...externalRows());
    const results = {
      date: new Date().toISOString(),
      machine: {
        cores: os.cpus().length,
        cpu: os.cpus()[0]?.model ?? 'unknown',
        node: process.version,
        cpuProbeMs: cpuProbeMs(),
      },
    };
    Object.assign(results, await measure(rows, bigFile));
    results.machine.cpuProbeMsAtEnd = cpuProbeMs();
    results.rows = summarize(rows);
    const dir = path.join(__dirname, 'results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'tus-compare.json'), JSON.stringify(results, null, 2) + '\n');
    const md = table(results);
    fs.writeFileSync(path.join(dir, 'tus-compare.md'), md);
    process.stdout.write(md);
  } finally {
    for (const a of agoras) await a.stop();
    await db.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
