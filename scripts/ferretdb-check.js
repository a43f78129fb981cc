#!/usr/bin/env node
/**
 * The Go checks of Agora's FerretDB patch series (third_party/ferretdb/), run by `npm test` after the
 * build: the series is applied to FerretDB's module source exactly as the build applies it
 * (dist/db/ferretdb-build.js), then
 *   - gofmt: every patched file and every added file is formatted;
 *   - go vet: the patched packages;
 *   - go test: the patched packages, FerretDB's own tests of them included, and the seeds of the fuzz
 *     tests (a fuzz test without -fuzz runs its seed corpus).
 * With --fuzztime=<duration> (e.g. 60s) each fuzz test of the series then fuzzes for that long.
 *
 * The source goes to a fixed folder in Agora's cache directory, so that Go's build and test caches
 * serve a re-run of unchanged code. Without `go` on PATH the checks are skipped with a message.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function main() {
  const fuzzArg = process.argv.slice(2).find((a) => a.startsWith('--fuzztime='));
  const go = process.env.GO_BIN || 'go';
  if (spawnSync(go, ['version'], { stdio: 'ignore' }).status !== 0) {
    console.log(`ferretdb-check: skipped, no \`${go}\` on PATH (the Go checks need Go, as the FerretDB build does)`);
    return;
  }
  let build;
  let config;
  try {
    build = require(path.join(root, 'dist/db/ferretdb-build.js'));
    config = require(path.join(root, 'dist/config/index.js'));
  } catch (err) {
    throw new Error(`ferretdb-check: run \`npm run build\` first (${err.message.split('\n')[0]})`, { cause: err });
  }
  const cacheDir = config.loadConfig(process.env).database.cacheDir;
  const src = path.join(cacheDir, 'ferretdb-check', 'src');
  // -trimpath as in the build, so the packages it compiled are reused from Go's build cache.
  const env = { ...build.goEnv(), GOFLAGS: '-mod=mod -buildvcs=false -trimpath' };

  build.prepareFerretdbSource(go, src, env).then(
    ({ patched, added }) => {
      // FerretDB's test helpers look for the repository root by its .git.
      fs.writeFileSync(path.join(src, '.git'), '');
      const goFiles = [...patched, ...added].filter((f) => f.endsWith('.go'));
      const packages = [...new Set(goFiles.map((f) => `./${path.posix.dirname(f)}`))].sort();
      console.log(`ferretdb-check: series applied in ${src} (${patched.length} files patched, ${added.length} added)`);

      const unformatted = step('gofmt', 'gofmt', ['-l', ...goFiles], src, env, true).trim();
      if (unformatted) fail(`gofmt: not formatted:\n${unformatted}`);
      console.log(`ferretdb-check: gofmt ok (${goFiles.length} files)`);
      step('go vet', go, ['vet', ...packages], src, env);
      console.log(`ferretdb-check: go vet ok (${packages.join(' ')})`);
      step('go test', go, ['test', ...packages], src, env);

      if (fuzzArg) {
        const fuzztime = fuzzArg.split('=')[1];
        for (const f of added.filter((f) => f.endsWith('_test.go'))) {
          const text = fs.readFileSync(path.join(src, f), 'utf8');
          for (const [, name] of text.matchAll(/^func (Fuzz\w+)\(/gm)) {
            const pkg = `./${path.posix.dirname(f)}`;
            step(`fuzz ${name}`, go, ['test', '-run=^$', `-fuzz=^${name}$`, `-fuzztime=${fuzztime}`, pkg], src, env);
          }
        }
      }
      console.log('ferretdb-check: all Go checks passed');
    },
    (err) => fail(err.message),
  );
}

/** Runs a command in the tree; its output is shown (or returned when `capture`); a failure ends the checks. */
function step(what, cmd, args, cwd, env, capture = false) {
  if (!capture) console.log(`ferretdb-check: ${cmd} ${args.join(' ')}`);
  const stdio = capture ? ['ignore', 'pipe', 'inherit'] : 'inherit';
  const r = spawnSync(cmd, args, { cwd, env, stdio, encoding: 'utf8' });
  if (r.status !== 0) fail(`${what} failed (exit ${r.status ?? r.signal})`);
  return r.stdout ?? '';
}

function fail(message) {
  console.error(`ferretdb-check: ${message}`);
  process.exit(1);
}

main();
