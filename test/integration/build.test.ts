/**
 * `npm start` and `npm run cli` build first (scripts/build.js), but skip the TypeScript compiler
 * when dist/ is provably up to date, so a second start with nothing changed does not recompile;
 * a changed or missing file still compiles. Runs the real npm commands in a copy of the
 * repository (its node_modules linked), removed afterwards.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withDatabaseName } from '../../src/server';
import { baseEnv } from '../helpers/child';
import { ensureBuilt, ROOT } from '../helpers/dist';

jest.setTimeout(300_000);

let copy: string;
beforeAll(() => {
  ensureBuilt();
  copy = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-build-test-'));
  for (const f of [
    'src',
    'scripts',
    'native',
    'dist',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
  ])
    fs.cpSync(path.join(ROOT, f), path.join(copy, f), { recursive: true, preserveTimestamps: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});
afterAll(() => {
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

const env = () => baseEnv({ DEMO_SEED: 'false', LOG_LEVEL: 'info' });
const npm = (...args: string[]) => spawnSync('npm', args, { cwd: copy, env: env(), encoding: 'utf8' });
const mtimes = (dir: string): Map<string, number> => {
  const all = new Map<string, number>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) all.set(path.join(e.parentPath, e.name), fs.statSync(path.join(e.parentPath, e.name)).mtimeMs);
  return all;
};

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

it('skips the compiler when nothing changed, and compiles a changed or a missing file', () => {
  const before = mtimes(path.join(copy, 'dist'));
  const unchanged = npm('run', 'build');
  expect(unchanged.status).toBe(0);
  expect(unchanged.stderr).toMatch(/TypeScript: dist\/ is up to date .*skipped/);
  expect(unchanged.stderr).not.toMatch(/compiling src/);
  expect(mtimes(path.join(copy, 'dist'))).toEqual(before);

  // The CLI's build step says nothing when up to date; its answer is all that is printed.
  const help = npm('run', '--silent', 'cli', '--', 'help');
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^Usage: npm run cli/);
  expect(help.stderr).toBe('');

  const marker = `BUILD_TEST_${crypto.randomBytes(4).toString('hex')}`;
  fs.appendFileSync(path.join(copy, 'src', 'version.ts'), `export const ${marker} = 1;\n`);
  fs.rmSync(path.join(copy, 'dist', 'public-url.js'));
  const changed = npm('run', 'build');
  expect(changed.status).toBe(0);
  expect(changed.stderr).toMatch(/TypeScript: compiling src\/ into dist\//);
  expect(fs.readFileSync(path.join(copy, 'dist', 'version.js'), 'utf8')).toContain(marker);
  expect(fs.existsSync(path.join(copy, 'dist', 'public-url.js'))).toBe(true);

  const again = npm('run', 'build');
  expect(again.stderr).toMatch(/up to date .*skipped/);
});

it('refuses to build with a type error, and does not mark dist/ up to date', () => {
  const file = path.join(copy, 'src', 'version.ts');
  const original = fs.readFileSync(file, 'utf8');
  fs.appendFileSync(file, 'export const broken: number = "not a number";\n');
  try {
    const failed = npm('run', 'build');
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toMatch(/the build failed/);
    expect(fs.existsSync(path.join(copy, 'dist', '.build-fingerprint'))).toBe(false);
  } finally {
    fs.writeFileSync(file, original);
  }
  expect(npm('run', 'build').status).toBe(0);
});

it('a second `npm start` with nothing changed starts without compiling and becomes ready', async () => {
  const uri = withDatabaseName(process.env.MONGODB_URI!, `agora_build_${crypto.randomBytes(4).toString('hex')}`);
  const dataDir = path.join(copy, 'data');
  const child = spawn('npm', ['start'], {
    cwd: copy,
    env: { ...env(), MONGODB_URI: uri, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    let url: string | undefined;
    for (let i = 0; i < 600 && !url; i++) {
      url = /listening on (http:\/\/\S+)/.exec(out)?.[1]?.replace('localhost', '127.0.0.1');
      if (!url) await new Promise((r) => setTimeout(r, 100));
    }
    expect(url).toBeDefined();
    let ready = 0;
    for (let i = 0; i < 100 && ready !== 200; i++) {
      ready = (await fetch(`${url}/readyz`)).status;
      if (ready !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(200);
    expect(out).toMatch(/TypeScript: dist\/ is up to date/);
    expect(out).not.toMatch(/compiling src/);
  } finally {
    // npm and the server it started are one process group: SIGTERM reaches the server.
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    for (let i = 0; i < 300 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(child.pid!)).toBe(false);
  }
});
