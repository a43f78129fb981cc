/**
 * `npm run bench`: starts the embedded database and the built server, runs the benchmark groups,
 * and writes bench/results/latest.json and bench/results/latest.md.
 *
 *   npm run bench                 every group
 *   npm run bench -- files        one group (files | api)
 *   BENCH_RUNS=3 BENCH_SECONDS=5 BENCH_BIG_MB=1024   runs per figure (median), seconds per load run, big file size
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startDatabase, startAgora, tempDir } = require('./lib/agora');
const { runFilesBench } = require('./files');
const { writeReport } = require('./report');

const groups = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const available = { api: fs.existsSync(path.join(__dirname, 'api.js')), files: true };
const wanted = (g) => available[g] && (groups.length === 0 || groups.includes(g));
const env = (name, fallback) => Number(process.env[name] ?? fallback);

async function main() {
  const opts = {
    runs: env('BENCH_RUNS', 3),
    seconds: env('BENCH_SECONDS', 5),
    bigBytes: env('BENCH_BIG_MB', 1024) * 1024 * 1024,
    smallUploads: env('BENCH_SMALL_UPLOADS', 400),
  };
  const workDir = tempDir('agora-bench-');
  const db = await startDatabase(path.join(workDir, 'data'));
  const results = {
    date: new Date().toISOString(),
    machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    database: db.description,
    options: opts,
  };
  process.stderr.write(`[bench] ${results.machine.cores} cores (${results.machine.cpu}), database: ${db.description}\n`);
  try {
    if (wanted('api')) {
      const { runApiBench } = require('./api');
      results.api = await runApiBench({ db, workDir, opts });
    }
    if (wanted('files')) {
      const agora = await startAgora({ mongoUri: `${db.uri}/agora_bench_files`, dataDir: path.join(workDir, 'agora-files') });
      try {
        results.files = await runFilesBench({ agora, workDir, opts });
      } finally {
        await agora.stop();
      }
    }
  } finally {
    await db.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  writeReport(results);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
