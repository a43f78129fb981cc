/**
 * Starts the pieces a benchmark measures: the database (the same launcher as `npm start`) and the
 * built server as a child process, so its resident memory can be sampled on its own.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');

function requireDist(rel) {
  const file = path.join(DIST, rel);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm run bench does)`);
  return require(file);
}

/** Launches (or connects to) the database; returns { uri, kind, description, stop }. */
async function startDatabase(dataDir) {
  const { loadConfig } = requireDist('config/index.js');
  const { launchDatabase } = requireDist('db/launcher.js');
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir });
  return launchDatabase({ dataDir, database: config.database, log: (m) => process.stderr.write(`[bench-db] ${m}\n`) });
}

/** The flags the benchmarks start the server with: the deployed ones, then BENCH_NODE_ARGS. */
function benchNodeArgs() {
  return [...deployedNodeArgs(), ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
}

/**
 * The Node flags the server is deployed with: those of package.json's `start:built` (the Dockerfile's
 * CMD has the same), so a benchmark measures the server as it runs.
 */
function deployedNodeArgs() {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const m = /^node\s+(.*?)\s*dist\/main\.js$/.exec((pkg.scripts['start:built'] ?? '').trim());
  return m ? m[1].split(/\s+/).filter(Boolean) : [];
}

/**
 * Starts `node dist/main.js` against `mongoUri` with the deployed flags; resolves { url, pid, stop,
 * output }. `main` runs another build (a baseline's dist/main.js). BENCH_NODE_ARGS adds flags (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
 * `onOutput(text, stream)`, when given, receives what the server writes after it listens (its JSON
 * log lines on stdout, anything on stderr), so a benchmark can count the errors it logged.
 */
function startAgora({
  mongoUri,
  dataDir,
  env = {},
  nodeArgs = benchNodeArgs(),
  onOutput,
  main = path.join(DIST, 'main.js'),
}) {
  const child = spawn(process.execPath, [...nodeArgs, main], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // As deployed: graphql-js and other libraries skip their development-mode checks.
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      MONGODB_URI: mongoUri,
      JWT_SECRET: 'bench-secret-0123456789-0123456789-0123456789',
      FILES_CLEANUP_INTERVAL: '0',
      LOGIN_RATE_LIMIT: '1000000',
      // Benchmarks upload and register far more often than one client address may.
      FILES_UPLOAD_RATE_LIMIT: '0',
      REGISTRATION_RATE_LIMIT: '0',
      // A load generator writes as a handful of users, far faster than a person.
      TOPIC_RATE_LIMIT: '0',
      COMMENT_RATE_LIMIT: '0',
      VOTE_RATE_LIMIT: '0',
      LABEL_RATE_LIMIT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stopping = false;
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        if (onOutput) child.stdout.on('data', (c) => onOutput(c.toString(), 'stdout'));
        else child.stdout.resume();
        child.stderr.on('data', (c) => {
          process.stderr.write(`[agora] ${c}`);
          if (onOutput) onOutput(c.toString(), 'stderr');
        });
        child.once('exit', (code, signal) => {
          if (!stopping)
            process.stderr.write(
              `[agora] the server exited unexpectedly (code ${code}, signal ${signal})\n${out.slice(-2000)}\n`,
            );
        });
        resolve({
          url: m[1].replace('localhost', '127.0.0.1'),
          pid: child.pid,
          output: () => out,
          stop: () =>
            new Promise((r) => {
              stopping = true;
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`agora exited (${code}) before listening:\n${out}`)));
  });
}

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** GET on a fresh connection (long benchmark runs outlive idle keep-alive sockets). */
function getText(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(body) : reject(new Error(`GET ${url} → ${res.statusCode}`)),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Total of mongodb_commands_total over all command names, read from /metrics. */
async function mongoCommands(url) {
  const text = await getText(`${url}/metrics`);
  let total = 0;
  for (const m of text.matchAll(/^mongodb_commands_total\{[^}]*\} (\d+(?:\.\d+)?)/gm)) total += Number(m[1]);
  return total;
}

/**
 * mongodb_commands_total and mongodb_command_seconds_total summed over command names: round trips
 * and seconds spent waiting for the database (summed per command, so overlapping commands of one
 * request both count).
 */
async function mongoStats(url) {
  const text = await getText(`${url}/metrics`);
  let commands = 0;
  let seconds = 0;
  for (const m of text.matchAll(/^mongodb_commands_total\{[^}]*\} (\S+)/gm)) commands += Number(m[1]);
  for (const m of text.matchAll(/^mongodb_command_seconds_total\{[^}]*\} (\S+)/gm)) seconds += Number(m[1]);
  return { commands, seconds };
}

module.exports = {
  ROOT,
  DIST,
  requireDist,
  startDatabase,
  startAgora,
  tempDir,
  mongoCommands,
  mongoStats,
  benchNodeArgs,
};
