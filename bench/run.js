/**
 * `npm run bench`: starts the embedded database and the built server, runs the benchmark groups,
 * and writes bench/results/latest.json and bench/results/latest.md.
 *
 *   npm run bench                 every group
 *   npm run bench -- files        one group (files | api | tus); files includes the tus row
 *   TUS_CHUNK_MB=50               PATCH size of the tus row (bench/tus.js)
 *   BENCH_RUNS=3 BENCH_SECONDS=5 BENCH_BIG_MB=1024   runs per figure (median), seconds per load run, big file size
 *   BENCH_CONNECTIONS=8           connections of the API load runs
 *   BENCH_DISTINCT_FILES=500 BENCH_ROUNDS=7   distinct 1 MiB files uploaded, then downloaded once each, per
 *                                 round; rounds of that (files group: Agora's ratios are the median of each round's)
 *   BENCH_EXTERNAL_URL=http://127.0.0.1:8080 BENCH_EXTERNAL_PID=<pid> BENCH_EXTERNAL_NAME=linx-server
 *                                 also measure a server with the linx-server API (Linx-* headers, /selif/),
 *                                 started by hand, with the same client (files group; its CPU from /proc/<pid>)
 *   BENCH_API_ONLY='topic 6y1'    only the API scenarios whose name matches (a regular expression)
 *   BENCH_SKIP_BOUNDS=1           no commands-per-request bounds check at the end of the API group
 *   MONGODB_URI=mongodb://…       run against that MongoDB (the dataset is seeded into agora_bench there)
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startDatabase, startAgora, tempDir } = require('./lib/agora');
const { cpuProbeMs } = require('./lib/cpu-probe');
const { fsyncProbeUs } = require('./lib/fsync-probe');
const { runFilesBench, makeFile } = require('./files');
const { runTusBench } = require('./tus');
const { writeReport } = require('./report');

const groups = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const available = { api: fs.existsSync(path.join(__dirname, 'api.js')), files: true, tus: true };
const wanted = (g) => available[g] && (groups.length === 0 || groups.includes(g));
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const log = (m) => process.stderr.write(`[bench] ${m}\n`);

async function main() {
  const started = Date.now();
  const opts = {
    runs: env('BENCH_RUNS', 3),
    seconds: env('BENCH_SECONDS', 5),
    connections: env('BENCH_CONNECTIONS', 8),
    bigBytes: env('BENCH_BIG_MB', 1024) * 1024 * 1024,
    distinctFiles: env('BENCH_DISTINCT_FILES', 500),
    rounds: env('BENCH_ROUNDS', 7),
    skipBounds: process.env.BENCH_SKIP_BOUNDS === '1',
    apiOnly: process.env.BENCH_API_ONLY || null,
  };
  const workDir = tempDir('agora-bench-');
  const dataDir = path.join(workDir, 'data');
  let manifest = null;
  if (wanted('api')) {
    // The dataset goes in before the database starts (FerretDB: a cached SQLite file copied in).
    const { prepareDataDir } = require('./seed');
    manifest = await prepareDataDir(dataDir, (m) => log(`seed: ${m}`));
  }
  const db = await startDatabase(dataDir);
  const results = {
    date: new Date().toISOString(),
    machine: {
      cores: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpuProbeMs: cpuProbeMs(),
      fsyncProbeUs: fsyncProbeUs(workDir),
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
    },
    database: db.description.replace(/ \(SQLite in .*\)$/, ' (SQLite backend)').replace(/ \(data in .*\)$/, ''),
    options: opts,
  };
  log(
    `${results.machine.cores} cores (${results.machine.cpu}, CPU probe ${results.machine.cpuProbeMs} ms, ` +
      `fsync probe ${results.machine.fsyncProbeUs} µs), ` +
      `load average ${results.machine.loadAverageAtStart.join(' ')}, database: ${results.database}`,
  );
  try {
    if (wanted('api')) {
      if (!manifest || db.kind !== 'ferretdb') {
        const { seedInPlace } = require('./seed');
        manifest = await seedInPlace(db.uri, (m) => log(`seed: ${m}`));
      }
      const { runApiBench } = require('./api');
      results.api = await runApiBench({ db, workDir, opts, manifest });
    }
    if (wanted('files')) {
      const agora = await startAgora({
        mongoUri: `${db.uri}/agora_bench_files`,
        dataDir: path.join(workDir, 'agora-files'),
        env: { DEMO_SEED: 'false' },
      });
      try {
        const e = process.env;
        const external = e.BENCH_EXTERNAL_URL
          ? {
              url: e.BENCH_EXTERNAL_URL.replace(/\/+$/, ''),
              pid: Number(e.BENCH_EXTERNAL_PID),
              name: e.BENCH_EXTERNAL_NAME || 'external server',
            }
          : null;
        results.files = await runFilesBench({ agora, db, workDir, opts, external });
      } finally {
        await agora.stop();
      }
    }
    if (wanted('files') || wanted('tus')) {
      // Resumable uploads beside plain ones, on a fresh server (bench/tus.js).
      const agora = await startAgora({
        mongoUri: `${db.uri}/agora_bench_tus`,
        dataDir: path.join(workDir, 'agora-tus'),
        env: { DEMO_SEED: 'false' },
      });
      const bigFile = path.join(workDir, 'tus-big.bin');
      try {
        makeFile(bigFile, opts.bigBytes);
        results.tus = await runTusBench({ agora, bigFile, opts });
      } finally {
        await agora.stop();
        fs.rmSync(bigFile, { force: true });
      }
    }
  } finally {
    await db.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  results.machine.loadAverageAtEnd = os.loadavg().map((x) => Math.round(x * 100) / 100);
  results.machine.cpuProbeMsAtEnd = cpuProbeMs();
  results.machine.fsyncProbeUsAtEnd = fsyncProbeUs();
  results.minutes = Math.round((Date.now() - started) / 600) / 100;
  writeReport(results);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
