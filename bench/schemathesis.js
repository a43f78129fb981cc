/**
 * `node bench/schemathesis.js` (after `npm run build`): Schemathesis, a property-based API tester
 * from PyPI (`pip install schemathesis`), over /api/beta/openapi.json of the built server on the
 * demo data — every check, positive and negative data, all its phases (examples, coverage,
 * fuzzing, stateful) — once anonymous and once logged in (demo user alice). Each run is bounded
 * by its time budget. Prints requests, checks and failures per run; failures are listed, and the
 * one kind OpenAPI 3.0 cannot prevent (a schema-valid request giving both `before` and `after`,
 * refused with 400 `Can't specify both after and before.`, docs/discussion-api.md §2.3) is
 * counted apart as expected. Exits 1 on any other failure or on a Schemathesis error.
 *
 *   ST_SECONDS=120   time budget of each run (default 120)
 *   ST_WORKERS=1     concurrent Schemathesis workers
 *   SCHEMATHESIS=st  the `st` command (e.g. a virtualenv's bin/st)
 *   ST_SEED=…        a fixed seed, to reproduce a run
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { startDatabase, startAgora, tempDir } = require('./lib/agora');

const seconds = Number(process.env.ST_SECONDS ?? 120);
// One worker: with several, Hypothesis (on CPython 3.11) can fail with "AST constructor recursion
// depth mismatch" while describing its strategies, an error of the tool, not of the server.
const workers = String(process.env.ST_WORKERS ?? 1);
const st = process.env.SCHEMATHESIS ?? 'st';
const log = (m) => process.stderr.write(`[schemathesis] ${m}\n`);

/** Runs `st run` in `cwd` (it keeps a cache there); resolves with its exit code (its output goes to stderr). */
function runSt(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(st, ['run', ...args], { cwd, stdio: ['ignore', process.stderr, process.stderr] });
    // A run that overruns its budget by far (a hung request) is stopped: the bound is ours too.
    const timer = setTimeout(() => child.kill('SIGTERM'), (seconds + 120) * 1000);
    child.on('error', (err) => {
      reject(new Error(`cannot run ${st} (pip install schemathesis, or set SCHEMATHESIS): ${err.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

/** The expected failure: both cursors given, the server answering the §2.3 cross-parameter item. */
function isCursorExclusivity(failure, interaction) {
  if (failure.code !== 'ST202' || !interaction) return false;
  const query = new URL(interaction.request.uri).searchParams;
  const encoded = interaction.response?.content?.$base64;
  const body = encoded ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  const headOnly = interaction.request.method === 'HEAD';
  const refused =
    interaction.response.status_code === 400 && (headOnly || body.includes("Can't specify both after and before."));
  return query.has('before') && query.has('after') && refused;
}

/** Requests, checks and failures of one run, from its NDJSON event stream. */
function summarize(ndjsonFile) {
  const seen = new Set();
  const out = { requests: 0, checks: 0, failures: 0, expected: 0, unexpected: [], errors: 0, generated: 0 };
  for (const line of fs.readFileSync(ndjsonFile, 'utf8').split('\n')) {
    if (!line) continue;
    const event = JSON.parse(line);
    if (event.EngineFinished) continue;
    if (event.NonFatalError || event.FatalError) out.errors++;
    const done = event.ScenarioFinished;
    if (!done) continue;
    const checks = done.recorder?.checks ?? {};
    const interactions = done.recorder?.interactions ?? {};
    for (const [caseId, list] of Object.entries(checks)) {
      // Scenarios are reported again as they shrink: count each case once.
      const key = `${done.id}/${caseId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (interactions[caseId]) out.requests++;
      for (const check of list) {
        out.checks++;
        if (check.status !== 'failure') continue;
        out.failures++;
        const failure = check.failure_info?.failure ?? {};
        const request = interactions[caseId]?.request;
        if (isCursorExclusivity(failure, interactions[caseId])) out.expected++;
        else
          out.unexpected.push(
            `${failure.code} ${failure.operation}: ${failure.title} — ${request?.method} ${request?.uri}`,
          );
      }
    }
  }
  return out;
}

async function main() {
  const work = tempDir('agora-schemathesis-');
  const db = await startDatabase(path.join(work, 'data'));
  let agora;
  let failed = false;
  try {
    // The demo data gives the generated requests topics, comments and users to find.
    const env = { DEMO_SEED: 'true', LOG_LEVEL: 'error' };
    agora = await startAgora({ mongoUri: `${db.uri}/agora_schemathesis`, dataDir: path.join(work, 'agora'), env });
    const login = await fetch(`${agora.url}/api/beta/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'demo-password' }),
    });
    const { token } = await login.json();
    if (!token) throw new Error(`login as alice failed: ${login.status}`);
    const results = [];
    for (const [name, extra] of [
      ['anonymous', []],
      ['logged in', ['-H', `Authorization: Bearer ${token}`]],
    ]) {
      const reportDir = path.join(work, `report-${results.length}`);
      log(`${name}: ${seconds} s`);
      const code = await runSt(
        [
          `${agora.url}/api/beta/openapi.json`,
          '--checks',
          'all',
          '--mode',
          'all',
          '--phases',
          'examples,coverage,fuzzing,stateful',
          '--max-time',
          String(seconds),
          '--workers',
          workers,
          '--no-color',
          '--report',
          'ndjson',
          '--report-dir',
          reportDir,
          ...(process.env.ST_SEED ? ['--seed', process.env.ST_SEED] : []),
          ...extra,
        ],
        work,
      );
      const ndjson = fs.readdirSync(reportDir).find((f) => f.endsWith('.ndjson'));
      const summary = { name, exitCode: code, ...summarize(path.join(reportDir, ndjson)) };
      results.push(summary);
      if (summary.unexpected.length > 0 || summary.errors > 0) failed = true;
    }
    process.stdout.write(
      '\nSchemathesis over /api/beta/openapi.json (all checks, positive and negative, every phase)\n',
    );
    for (const r of results) {
      process.stdout.write(
        `  ${r.name}: ${r.requests} requests, ${r.checks} checks, ${r.failures} failures ` +
          `(${r.expected} before+after given together, which OpenAPI 3.0 cannot express; ` +
          `${r.unexpected.length} other), ${r.errors} errors\n`,
      );
      for (const u of r.unexpected.slice(0, 20)) process.stdout.write(`    ${u}\n`);
    }
  } finally {
    await agora?.stop();
    await db.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
