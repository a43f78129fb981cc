/**
 * `.ci/run`'s check that a test run leaves nothing behind.
 *
 *   node scripts/ci-leftovers.js snapshot <file>      before the run: what is in /tmp, which processes run
 *   node scripts/ci-leftovers.js check <file> <log>   after it: fails (exit 1) listing what the run left
 *
 * A run must leave, outside the repository: nothing in its own TMPDIR (which .ci/run makes fresh)
 * and no new entry in /tmp; no process of its own (one that carries AGORA_CI_RUN in its
 * environment, or runs in or names the repository or TMPDIR); no FerretDB build folder
 * (~/.cache/agora/ferretdb-…/src-<pid>). Allowed to persist, as caches: ~/.cache/agora (the FerretDB
 * binary), Go's caches (~/.cache/go-build, ~/go/pkg/mod) and npm's (~/.npm, Node 24 included). The
 * log is checked for Jest forcing a worker out or waiting on open handles.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const [mode, file, log] = process.argv.slice(2);
const marker = process.env.AGORA_CI_RUN;
const tmpdir = os.tmpdir();

function tmpEntries() {
  return fs.readdirSync('/tmp');
}

function processes() {
  const all = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie is gone, only not yet reaped
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      let env = '';
      let cwd = '';
      try {
        env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
        cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // Another user's process: not ours.
      }
      all.push({ pid: Number(pid), cmd, env, cwd });
    } catch {
      // Ended while being read.
    }
  }
  return all;
}

const ours = (p) =>
  (marker && p.env.split('\0').includes(`AGORA_CI_RUN=${marker}`)) ||
  p.cwd.startsWith(root) ||
  p.cmd.includes(root) ||
  (tmpdir !== '/tmp' && (p.cwd.startsWith(tmpdir) || p.cmd.includes(tmpdir)));

/** This process's ancestors (the shell running .ci/run, …): they are still running, by design. */
function ancestors() {
  const seen = new Set();
  for (let pid = process.ppid; pid > 1 && !seen.has(pid);) {
    seen.add(pid);
    try {
      pid = Number(/\) \S+ (\d+)/.exec(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))[1]);
    } catch {
      break;
    }
  }
  return seen;
}

async function check() {
  const before = JSON.parse(fs.readFileSync(file, 'utf8'));
  const mine = ancestors();
  const problems = [];
  // Give processes told to stop a moment to end.
  let left = [];
  for (let i = 0; i < 20; i++) {
    left = processes().filter((p) => !before.pids.includes(p.pid) && !mine.has(p.pid) && ours(p));
    if (left.length === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  for (const p of left) problems.push(`process ${p.pid} still running: ${p.cmd.slice(0, 200)}`);
  for (const e of tmpEntries()) if (!before.tmp.includes(e)) problems.push(`left in /tmp: ${e}`);
  if (tmpdir !== '/tmp' && fs.existsSync(tmpdir))
    for (const e of fs.readdirSync(tmpdir)) problems.push(`left in TMPDIR: ${path.join(tmpdir, e)}`);
  const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'agora');
  for (const build of fs.existsSync(cache) ? fs.readdirSync(cache) : []) {
    const dir = path.join(cache, build);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const e of fs.readdirSync(dir)) if (/^(src-|ferretdb\.tmp-)\d+$/.test(e)) problems.push(`left: ${dir}/${e}`);
  }
  if (log) {
    const text = fs.readFileSync(log, 'utf8');
    // A handle a test file leaves open fails that file (test/setup/handle-checked-environment.js names
    // it); these are the signs of one that escaped that check.
    for (const sign of ['A worker process has failed to exit gracefully', 'Jest did not exit one second after'])
      if (text.includes(sign)) problems.push(`Jest: "${sign}…" (a test leaks an open handle)`);
  }
  if (problems.length > 0) {
    console.error(`ci-leftovers: the run left things behind:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.error('ci-leftovers: nothing left behind (no files in /tmp or TMPDIR, no processes)');
}

if (mode === 'snapshot') {
  fs.writeFileSync(file, JSON.stringify({ tmp: tmpEntries(), pids: processes().map((p) => p.pid) }));
} else if (mode === 'check') {
  check().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  console.error('usage: node scripts/ci-leftovers.js snapshot|check <file> [log]');
  process.exit(2);
}
