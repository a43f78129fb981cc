/**
 * `npm run build` (and the first step of `npm start`, `npm run cli`, `npm run schema`): checks the
 * installed dependencies, compiles src/ into dist/ unless dist/ is provably up to date, and builds
 * the native sendfile module (scripts/build-native.js). Each step says what it does on stderr.
 *
 * "Provably up to date": dist/.build-fingerprint holds a hash of every input the compiler reads
 * that can change here (every file under src/, both tsconfig files, package-lock.json, the
 * TypeScript version), written only after a build succeeded; the compiler is skipped when that
 * hash matches and every src/*.ts still has its dist/*.js. Anything else compiles, incrementally
 * (tsc's build info in dist/.tsbuildinfo), or from scratch when outputs are missing.
 *
 *   --force   compile even when up to date
 *   --quiet   say nothing when every step is up to date (the CLI, whose output may be piped)
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const stampFile = path.join(dist, '.build-fingerprint');
const buildInfo = path.join(dist, '.tsbuildinfo');
const force = process.argv.includes('--force');
const quiet = process.argv.includes('--quiet');

function say(msg) {
  process.stderr.write(`[build] ${msg}\n`);
}

function* filesUnder(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* filesUnder(p);
    else if (e.isFile()) yield p;
  }
}

/** Step 1: every package package-lock.json names is installed at its locked version. */
function checkInstall() {
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  if (!fs.existsSync(installed)) {
    say('dependencies are not installed: run `npm ci` first');
    process.exit(1);
  }
  const locked = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')).packages;
  const present = JSON.parse(fs.readFileSync(installed, 'utf8')).packages;
  const wrong = [];
  for (const [name, entry] of Object.entries(locked)) {
    if (name === '' || entry.optional || entry.link) continue;
    const got = present[name];
    if (!got || got.version !== entry.version) wrong.push(name.replace(/^.*node_modules\//, ''));
  }
  if (wrong.length > 0) {
    say(
      `dependencies differ from package-lock.json (${wrong.slice(0, 3).join(', ')}` +
        `${wrong.length > 3 ? `, and ${wrong.length - 3} more` : ''}): run \`npm ci\``,
    );
    process.exit(1);
  }
  return Object.keys(present).length - 1;
}

/** A hash of everything the TypeScript build reads that can change in the repository. */
function fingerprint() {
  const hash = crypto.createHash('sha256');
  const tsVersion = require(path.join(root, 'node_modules', 'typescript', 'package.json')).version;
  hash.update(`typescript ${tsVersion}\0`);
  const inputs = [
    ...filesUnder(path.join(root, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => path.join(root, f)),
  ];
  for (const file of inputs) {
    hash.update(`${path.relative(root, file)}\0`);
    hash.update(fs.readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The src/*.ts files whose dist/*.js is missing. */
function missingOutputs() {
  const missing = [];
  for (const file of filesUnder(path.join(root, 'src'))) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const out = path.join(dist, path.relative(path.join(root, 'src'), file)).replace(/\.ts$/, '.js');
    if (!fs.existsSync(out)) missing.push(out);
  }
  return missing;
}

/** Step 2: the TypeScript build, skipped when provably up to date. */
async function compile() {
  const wanted = fingerprint();
  const current = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
  const missing = missingOutputs();
  if (!force && current === wanted && missing.length === 0) {
    if (!quiet) say('TypeScript: dist/ is up to date with src/ (nothing changed since the last build), skipped');
    return;
  }
  // tsc's incremental mode trusts its build info about outputs: with some missing, start afresh.
  if (missing.length > 0 || force) fs.rmSync(buildInfo, { force: true });
  const incremental = fs.existsSync(buildInfo);
  fs.rmSync(stampFile, { force: true });
  const estimate = incremental
    ? 'only what changed is checked again, usually 10–30 s on two cores'
    : 'a full build, about 20 s on two quiet cores and up to a minute on a busy machine';
  say(`TypeScript: compiling src/ into dist/ (${estimate}) …`);
  const started = Date.now();
  const heartbeat = setInterval(
    () => say(`  still compiling TypeScript (${Math.round((Date.now() - started) / 1000)} s so far)`),
    10_000,
  );
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [tsc, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', buildInfo];
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (c) => resolve(c ?? 1));
  });
  clearInterval(heartbeat);
  if (code !== 0) {
    say('TypeScript: the build failed (errors above); dist/ is not marked up to date');
    process.exit(code);
  }
  fs.writeFileSync(stampFile, `${wanted}\n`);
  say(`TypeScript: compiled in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Step 3: the native sendfile module; build-native.js says what it does when it builds or skips. */
function buildNative() {
  const built = spawnSync(process.execPath, [path.join(__dirname, 'build-native.js')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: quiet ? { ...process.env, AGORA_BUILD_QUIET: '1' } : process.env,
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

async function main() {
  const count = checkInstall();
  if (!quiet) say(`dependencies: the ${count} installed packages match package-lock.json`);
  await compile();
  buildNative();
}

main().catch((err) => {
  say(`failed: ${err.stack ?? err}`);
  process.exit(1);
});
