/**
 * Builds native/sendfile.c into dist/native/sendfile.node (src/storage/sendfile.ts) with the
 * machine's C compiler and the headers of the Node that runs this script (a Node release ships
 * them in include/node; nothing is downloaded). Optional: without a compiler or the headers, or on
 * another system than Linux, it says so and exits 0, and downloads read and write as before.
 * Rebuilt only when the source, the Node version or the module is missing or newer.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const source = path.join(root, 'native', 'sendfile.c');
const outDir = path.join(root, 'dist', 'native');
const out = path.join(outDir, 'sendfile.node');
const stamp = path.join(outDir, 'sendfile.node.version');

const quiet = process.env.AGORA_BUILD_QUIET === '1';

function say(msg) {
  process.stderr.write(`[build] ${msg}\n`);
}

function skip(why) {
  say(`native sendfile module not built (${why}); downloads read and write through Node`);
  process.exit(0);
}

if (process.platform !== 'linux') skip(`${process.platform} is not Linux`);
const include = path.join(path.dirname(path.dirname(fs.realpathSync(process.execPath))), 'include', 'node');
if (!fs.existsSync(path.join(include, 'node_api.h'))) skip(`no Node headers in ${include}`);

const upToDate =
  fs.existsSync(out) &&
  fs.existsSync(stamp) &&
  fs.readFileSync(stamp, 'utf8') === process.version &&
  fs.statSync(out).mtimeMs >= fs.statSync(source).mtimeMs;
if (upToDate) {
  if (!quiet) say(`native sendfile module: up to date for Node ${process.version}, skipped`);
  process.exit(0);
}

fs.mkdirSync(outDir, { recursive: true });
const cc = process.env.CC || 'cc';
const tmp = path.join(outDir, `sendfile.${process.pid}.tmp.node`);
say(`native sendfile module: compiling native/sendfile.c for Node ${process.version} with ${cc} (a few seconds) …`);
const args = ['-O2', '-Wall', '-shared', '-fPIC', '-I', include, '-o', tmp, source, '-lpthread'];
const built = spawnSync(cc, args, { stdio: ['ignore', 'inherit', 'inherit'] });
if (built.error || built.status !== 0) {
  fs.rmSync(tmp, { force: true });
  skip(built.error ? `${cc}: ${built.error.message}` : `${cc} failed`);
}
// Loaded once before it replaces the last build: a module that does not load is not kept.
const check = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(tmp)})`], { stdio: 'inherit' });
if (check.status !== 0) {
  fs.rmSync(tmp, { force: true });
  skip('the built module does not load');
}
fs.renameSync(tmp, out);
fs.writeFileSync(stamp, process.version);
say(`native sendfile module: built ${path.relative(root, out)}`);
