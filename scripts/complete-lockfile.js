#!/usr/bin/env node
/**
 * Completes package-lock.json for `npm ci` under npm 11.
 *
 * The registry this project installs from serves only the Linux builds of packages that ship one
 * native build per platform (@swc/core-*, @unrs/resolver-binding-*, …). `npm install` therefore
 * writes no lock entry for the other platforms' optional dependencies, and npm 11's `npm ci`
 * refuses such a lock as "not in sync". This script adds an entry for every optional dependency
 * missing from the lock, marked optional and restricted to the os/cpu its name names, so `npm ci`
 * accepts the lock and skips them on this platform (exactly as for a complete lock).
 *
 * Run after changing dependencies: `npm install <pkg> && node scripts/complete-lockfile.js`.
 */
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix', 'netbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'loong64', 'riscv64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  return { os, cpu };
}

/** Where npm would look up `dep` required from the package at `from` (node_modules hierarchy). */
function resolve(from, dep) {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!dir) return null;
    const idx = dir.lastIndexOf('/node_modules/');
    dir = idx >= 0 ? dir.slice(0, idx) : '';
  }
}

let added = 0;
for (const [loc, pkg] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    if (resolve(loc, dep)) continue;
    const version = String(range).replace(/^[~^=]/, '');
    const entry = { version, dev: pkg.dev || undefined, optional: true };
    const { os, cpu } = platformOf(dep);
    if (os) entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    packages[loc ? `${loc}/node_modules/${dep}` : `node_modules/${dep}`] = JSON.parse(JSON.stringify(entry));
    added += 1;
  }
}

const sorted = {};
for (const key of Object.keys(packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))))
  sorted[key] = packages[key];
lock.packages = sorted;
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entr${added === 1 ? 'y' : 'ies'}`);
